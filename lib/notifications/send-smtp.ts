import nodemailer from "nodemailer";
import type { RenderedEmail } from "@/lib/notifications/render-reviewer-email";

/** The SMTP URL's credentials are never repeated in an error that is stored or logged. */
export function redactSmtpSecrets(text: string, smtpUrl: string): string {
  let out = text;
  try {
    const url = new URL(smtpUrl);
    for (const secret of [url.password, decodeURIComponent(url.password), url.username, decodeURIComponent(url.username)]) {
      if (secret.length >= 3) out = out.split(secret).join("***");
    }
  } catch {
    // an unparsable URL never reached nodemailer
  }
  return out.replace(/smtps?:\/\/[^@\s/]*@/gi, "smtp://***@");
}

/**
 * Sends one email over SMTP, bounded by `timeoutMs` per stage. The Message-ID is the outbox's, so
 * a receiver can tell a retry of a message it already has. Never throws: the error is returned,
 * without the URL's credentials, with the server's reply code when it gave one (5xx: permanent).
 */
export async function sendSmtp(
  input: { smtpUrl: string; from: string; to: string; messageId: string; email: RenderedEmail; timeoutMs: number },
): Promise<{ ok: true } | { ok: false; error: string; code: number | null }> {
  const transport = nodemailer.createTransport({
    url: input.smtpUrl,
    connectionTimeout: input.timeoutMs, greetingTimeout: input.timeoutMs, socketTimeout: input.timeoutMs,
    logger: false, debug: false,
  });
  try {
    await transport.sendMail({
      from: input.from, to: input.to, subject: input.email.subject, text: input.email.text, messageId: input.messageId, textEncoding: "quoted-printable",
      headers: { "Auto-Submitted": "auto-generated", "X-Countersign-Notice": "reviewer" },
    });
    return { ok: true };
  } catch (error) {
    const message = error instanceof Error ? error.message : "The SMTP server could not be reached.";
    const code = (error as { responseCode?: unknown } | null)?.responseCode;
    return { ok: false, error: redactSmtpSecrets(message, input.smtpUrl).slice(0, 500), code: typeof code === "number" ? code : null };
  } finally {
    transport.close();
  }
}
