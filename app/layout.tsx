import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Countersign", template: "%s · Countersign" },
  description: "An accountable human gate between an AI agent's intent and its effect.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request, so each carries its own CSP nonce (proxy.ts).
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen text-sm">{children}</body>
    </html>
  );
}
