import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Destination } from "@/lib/webhooks/destination-guard";
import type { WebhookHeaders } from "@/lib/webhooks/sign-webhook";

export type SendOutcome = { ok: boolean; status: number | null; error: string | null };

const MAX_RESPONSE_BYTES = 2048;

/**
 * One POST of a signed body to a checked destination: to the address checked (TLS still verifies
 * the name), no redirects (a 3xx fails), bounded by `timeoutMs`; only 2xx is delivered. Never throws.
 */
export function sendWebhook(destination: Destination, body: string, headers: WebhookHeaders, timeoutMs: number): Promise<SendOutcome> {
  const { url, address, family } = destination;
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(
      url,
      {
        method: "POST",
        lookup: pinned,
        agent: false,
        headers: { "content-type": "application/json", "user-agent": "Countersign-Webhooks/1", "content-length": Buffer.byteLength(body), ...headers },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (text.length < MAX_RESPONSE_BYTES) text += chunk.slice(0, MAX_RESPONSE_BYTES - text.length);
        });
        response.on("end", () => {
          const ok = status >= 200 && status < 300;
          finish({ ok, status, error: ok ? null : `HTTP ${status}${text ? `: ${text.replace(/\s+/g, " ").trim().slice(0, 300)}` : ""}` });
        });
        response.on("error", (error) => finish({ ok: false, status, error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ ok: false, status: null, error: `No answer within ${timeoutMs} ms.` });
    }, timeoutMs);
    request.on("error", (error) => finish({ ok: false, status: null, error: error.message }));
    request.end(body);
  });
}
