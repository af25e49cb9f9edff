import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Countersign", template: "%s · Countersign" },
  description: "An accountable human gate between an AI agent's intent and its effect.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen text-sm">{children}</body>
    </html>
  );
}
