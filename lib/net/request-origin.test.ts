import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "@/lib/errors";
import { assertSameOrigin, consoleOrigins } from "@/lib/net/request-origin";

const browser = (origin: string | null, site = "same-origin") =>
  new Headers({ host: "127.0.0.1:3000", "sec-fetch-site": site, ...(origin ? { origin } : {}) });

function refusal(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.message}`;
    throw error;
  }
}

describe("the console's own origins", () => {
  it("a console configured at localhost (the bundled set-up) is also reached at 127.0.0.1 and [::1] on the same port", () => {
    expect(consoleOrigins({ publicUrl: "http://localhost:3000/" })).toEqual(["http://localhost:3000", "http://127.0.0.1:3000", "http://[::1]:3000"]);
    expect(consoleOrigins({ publicUrl: "http://127.0.0.1:3924" })).toEqual(["http://127.0.0.1:3924", "http://localhost:3924", "http://[::1]:3924"]);
  });

  it("a public host name gets no aliases, and the configured public URL comes first", () => {
    expect(consoleOrigins({ publicUrl: "https://console.example.com/app", extra: ["https://approvals.example.com"], host: "evil.example" }))
      .toEqual(["https://console.example.com", "https://approvals.example.com"]);
  });

  it("only with nothing configured does the Host header count", () => {
    expect(consoleOrigins({ host: "devbox:3000" })).toEqual(["http://devbox:3000", "https://devbox:3000"]);
    expect(consoleOrigins({})).toEqual([]);
  });
});

describe("assertSameOrigin", () => {
  afterEach(() => vi.unstubAllEnvs());
  const stateChanging = { cookieAuthenticated: true, stateChanging: true };

  it("accepts the console's own origin however it is reached, as `npm start` configures it", () => {
    vi.stubEnv("NEXTAUTH_URL", "http://localhost:3000");
    vi.stubEnv("COUNTERSIGN_PUBLIC_ORIGINS", "");
    for (const origin of ["http://localhost:3000", "http://127.0.0.1:3000", "http://[::1]:3000"]) {
      expect(refusal(() => assertSameOrigin(browser(origin), stateChanging)), origin).toBeNull();
    }
  });

  it("still refuses foreign origins: another port, another host, another scheme, another site", () => {
    vi.stubEnv("NEXTAUTH_URL", "http://localhost:3000");
    vi.stubEnv("COUNTERSIGN_PUBLIC_ORIGINS", "");
    for (const origin of ["http://127.0.0.1:3001", "http://localhost:8080", "https://localhost:3000", "http://evil.example", "http://127.0.0.2:3000", "null"]) {
      expect(refusal(() => assertSameOrigin(browser(origin), stateChanging)), origin)
        .toBe("403 Requests from another origin are refused; open the console at its own address (http://localhost:3000).");
    }
    expect(refusal(() => assertSameOrigin(browser("http://127.0.0.1:3000", "cross-site"), stateChanging))).toBe("403 Cross-site requests are refused.");
    expect(refusal(() => assertSameOrigin(browser(null), stateChanging))).toMatch(/^403 This request did not say which page sent it/);
  });

  it("behind a public host name, loopback origins are foreign (the Host header does not make them ours)", () => {
    vi.stubEnv("NEXTAUTH_URL", "https://console.example.com");
    vi.stubEnv("COUNTERSIGN_PUBLIC_ORIGINS", "https://approvals.example.com");
    expect(refusal(() => assertSameOrigin(browser("https://approvals.example.com"), stateChanging))).toBeNull();
    expect(refusal(() => assertSameOrigin(browser("http://127.0.0.1:3000"), stateChanging))).toMatch(/^403 Requests from another origin are refused/);
  });

  it("an agent with a bearer key may send no Origin at all", () => {
    vi.stubEnv("NEXTAUTH_URL", "http://localhost:3000");
    expect(refusal(() => assertSameOrigin(new Headers(), { cookieAuthenticated: false, stateChanging: true }))).toBeNull();
  });
});
