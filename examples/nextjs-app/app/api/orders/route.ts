// POST /api/orders {"items": ["mug", …], "reviewDelayMs"?: number}: places an order and enqueues its fulfil-order
// workflow in the same transaction. Answers 201 with the order's and the workflow's ids.

import { prisma } from "@/src/db";
import { placeOrder } from "@/src/orders";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const body = (await request.json().catch(() => null)) as { items?: unknown; reviewDelayMs?: unknown } | null;
  const items = body?.items;
  if (!Array.isArray(items) || items.length === 0 || items.length > 20 || !items.every((item) => typeof item === "string" && item.length > 0)) {
    return Response.json({ error: 'expected {"items": ["<item>", …]}: 1 to 20 non-empty strings' }, { status: 400 });
  }
  const reviewDelayMs = body?.reviewDelayMs;
  if (reviewDelayMs !== undefined && (typeof reviewDelayMs !== "number" || !Number.isInteger(reviewDelayMs) || reviewDelayMs < 0)) {
    return Response.json({ error: "reviewDelayMs is a whole number of milliseconds, 0 or more" }, { status: 400 });
  }
  return Response.json(await placeOrder(prisma(), items as string[], reviewDelayMs), { status: 201 });
}
