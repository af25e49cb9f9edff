import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { stampPeerAddresses } from "@/lib/server/stamp-peer-address";

let seen: IncomingHttpHeaders | undefined;
const server = createServer((request, response) => {
  seen = request.headers;
  response.end();
});

beforeAll(async () => {
  stampPeerAddresses();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("every request carries the socket's peer address, whatever the client sent under that name", async () => {
  const { port } = server.address() as AddressInfo;
  await fetch(`http://127.0.0.1:${port}/`, {
    headers: { [PEER_ADDRESS_HEADER]: "198.51.100.66", "x-forwarded-for": "198.51.100.77" },
  });
  expect(seen?.[PEER_ADDRESS_HEADER]).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  expect(seen?.["x-forwarded-for"]).toBe("198.51.100.77");
});
