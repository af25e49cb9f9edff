import http from "node:http";
import { E2E_PORT } from "@/e2e/support/config";

type Reply = { status: number; setCookies: string[]; body: string };

/** One HTTP request to the app under test from a chosen loopback address (any of 127.0.0.0/8). */
function call(localAddress: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port: E2E_PORT, localAddress, method, path, headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, setCookies: response.headers["set-cookie"] ?? [], body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * A credentials sign-in as a browser on another machine would make it: the server sees
 * `localAddress` as the peer, so tests can be several clients. Returns next-auth's error code
 * (`invalid`, `throttled`, …), or null when the sign-in succeeded.
 */
export async function signInFrom(localAddress: string, email: string, password: string, headers: Record<string, string> = {}): Promise<string | null> {
  const csrf = await call(localAddress, "GET", "/api/auth/csrf");
  const cookie = csrf.setCookies.map((c) => c.split(";")[0]).join("; ");
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const form = new URLSearchParams({ csrfToken, email, password, json: "true" }).toString();
  const reply = await call(localAddress, "POST", "/api/auth/callback/credentials", {
    ...headers, cookie, "content-type": "application/x-www-form-urlencoded",
  }, form);
  const { url } = JSON.parse(reply.body) as { url: string };
  return new URL(url).searchParams.get("error");
}
