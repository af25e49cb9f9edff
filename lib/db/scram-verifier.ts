import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

/**
 * A password as PostgreSQL stores it for SCRAM-SHA-256 (RFC 5802/7677), made here so that the
 * password itself is never sent in a statement, where the server's log could keep it (a failed
 * `ALTER ROLE … PASSWORD '…'` is logged with its text). Passwords we generate are ASCII, which
 * SASLprep leaves as they are.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}
