// POST /api/orders/<id>/shipped {"tracking": "…"}: the warehouse's webhook. The tracking number and the workflow's
// "shipped" event commit together; the workflow waiting for it is woken after the commit.

import { prisma } from "@/src/db";
import { shipOrder } from "@/src/orders";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const body = (await request.json().catch(() => null)) as { tracking?: unknown } | null;
  if (typeof body?.tracking !== "string" || body.tracking.length === 0) return Response.json({ error: 'expected {"tracking": "<number>"}' }, { status: 400 });
  if (!/^[0-9a-f-]{36}$/i.test(id) || !(await shipOrder(prisma(), id, body.tracking))) return Response.json({ error: `no order ${id}` }, { status: 404 });
  return Response.json({ shipped: true });
}
