// The range of a serverless call's budget (runDueTasks()'s budgetMs, taskQueue()'s afterBudgetMs): at least a second,
// at most 15 minutes (the longest function time limit of the platforms served).

export const MIN_BUDGET_MS = 1_000;
export const MAX_BUDGET_MS = 900_000;
