// The root layout of the example: one page, one stylesheet.

import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Reports · prisma-task-queue example",
  description: "Request a report; a background task generates it, retrying a flaky service, exactly once.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
