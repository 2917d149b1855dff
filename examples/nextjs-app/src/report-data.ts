// What the "third-party" report service returns, and how it makes it: a few lines of made-up sales figures,
// the same for the same report id, so that a retry returns what the first successful call would have.

import { shortId } from "./short-id";

export interface ReportData {
  reportId: string;
  title: string;
  lines: Array<{ region: string; orders: number; revenue: number }>;
  generatedAt: string;
}

const REGIONS = ["North", "South", "East", "West"];

export function makeReportData(reportId: string, generatedAt: Date): ReportData {
  let seed = 0;
  for (const char of reportId) seed = (seed * 31 + char.charCodeAt(0)) >>> 0;
  const lines = REGIONS.map((region) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const orders = 20 + (seed % 180);
    return { region, orders, revenue: orders * (35 + (seed % 40)) };
  });
  return { reportId, title: `Sales by region (report ${shortId(reportId)})`, lines, generatedAt: generatedAt.toISOString() };
}
