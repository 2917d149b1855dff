// GET /api/orders/<id>: the order with its workflow's status, steps and children.

import { prisma } from "@/src/db";
import { orderView } from "@/src/orders";

export const dynamic = "force-dynamic";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const view = /^[0-9a-f-]{36}$/i.test(id) ? await orderView(prisma(), id) : undefined;
  if (!view) return Response.json({ error: `no order ${id}` }, { status: 404 });
  return Response.json(view, { headers: { "cache-control": "no-store" } });
}
