// Orders: placing one writes the order and enqueues its fulfil-order workflow in one transaction; the warehouse's
// webhook writes the tracking number and sends the workflow its "shipped" event in one transaction; the view reads the
// order with its workflow's steps and children, as the page and the tests show them.

import type { AppPrisma } from "./db";

export interface OrderView {
  id: string;
  status: string;
  items: string[];
  chargeId: string | null;
  tracking: string | null;
  workflow: { id: string; status: string; result: unknown } | null;
  steps: Array<{ seq: number; name: string; kind: string; state: string }>;
  children: Array<{ id: string; name: string; status: string }>;
}

export async function placeOrder(prisma: AppPrisma, items: string[], reviewDelayMs?: number): Promise<{ orderId: string; workflowId: string }> {
  return prisma.$transaction(async (tx) => {
    const order = await tx.order.create({ data: { items } });
    const workflow = await tx.task.enqueue("fulfil-order", { orderId: order.id, items, ...(reviewDelayMs !== undefined && { reviewDelayMs }) });
    await tx.order.update({ where: { id: order.id }, data: { workflowId: workflow.id } });
    return { orderId: order.id, workflowId: workflow.id };
  });
}

/** The webhook: false when the order is unknown or its workflow no longer takes events. */
export async function shipOrder(prisma: AppPrisma, orderId: string, tracking: string): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const order = await tx.order.findUnique({ where: { id: orderId } });
    if (!order?.workflowId) return false;
    await tx.order.update({ where: { id: orderId }, data: { tracking } });
    const sent = await tx.task.signal(order.workflowId, "shipped", { tracking });
    if (!sent.accepted) throw new Error(`the workflow of order ${orderId} has finished: nothing to ship`);
    return true;
  });
}

export async function orderView(prisma: AppPrisma, orderId: string): Promise<OrderView | undefined> {
  const order = await prisma.order.findUnique({ where: { id: orderId } });
  if (!order) return undefined;
  const workflowId = order.workflowId;
  const [workflow, steps, children] = workflowId
    ? await Promise.all([
        prisma.task.findUnique({ where: { id: workflowId }, select: { id: true, status: true, result: true } }),
        prisma.taskStep.findMany({ where: { taskId: workflowId }, orderBy: { seq: "asc" }, select: { seq: true, name: true, kind: true, state: true } }),
        prisma.task.findMany({ where: { parentId: workflowId }, orderBy: { createdAt: "asc" }, select: { id: true, name: true, status: true } }),
      ])
    : [null, [], []];
  return {
    id: order.id,
    status: order.status,
    items: order.items as string[],
    chargeId: order.chargeId,
    tracking: order.tracking,
    workflow,
    steps,
    children,
  };
}
