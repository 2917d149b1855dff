// Next.js calls register() once when a server process starts (next start, next dev), before it serves requests. In
// the self-hosted mode (TASK_MODE=self-hosted) it starts the task queue's worker and cleaner in this process. The
// import sits behind the Node.js runtime check, so the edge bundle never includes the database drivers.

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startSelfHostedTasks } = await import("./src/self-hosted");
    await startSelfHostedTasks();
  }
}
