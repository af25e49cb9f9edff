import { createPublicKey, type JsonWebKey } from "node:crypto";
import { cose, decodeCredentialPublicKey } from "@simplewebauthn/server/helpers";
import { AppError } from "@/lib/errors";

/** The COSE algorithms a passkey may use here, each one Node's crypto (and so an offline verifier) can check. */
export const SUPPORTED_ALGORITHMS = [cose.COSEALG.ES256, cose.COSEALG.EdDSA, cose.COSEALG.RS256] as const;

const CURVES: Record<number, string> = { [cose.COSECRV.P256]: "P-256", [cose.COSECRV.P384]: "P-384", [cose.COSECRV.P521]: "P-521" };

const b64u = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString("base64url") : undefined);

/**
 * A credential's COSE public key (decoded by the WebAuthn library) as DER SPKI, base64, with its
 * COSE algorithm: the form stored with each signed decision, so an auditor's plain Node
 * (`crypto.verify`) can check the signature without any WebAuthn code.
 */
export function offlinePublicKey(coseKey: Uint8Array): { spki: string; algorithm: number } {
  const key = decodeCredentialPublicKey(new Uint8Array(coseKey));
  const kty = key.get(cose.COSEKEYS.kty);
  const algorithm = key.get(cose.COSEKEYS.alg);
  if (algorithm === undefined || !(SUPPORTED_ALGORITHMS as readonly number[]).includes(algorithm)) {
    throw new AppError("passkey_algorithm", "This passkey uses a signature algorithm the console does not accept (ES256, EdDSA or RS256); try another authenticator.", 400);
  }
  let jwk: JsonWebKey;
  if (kty === cose.COSEKTY.EC2 && cose.isCOSEPublicKeyEC2(key)) {
    jwk = { kty: "EC", crv: CURVES[key.get(cose.COSEKEYS.crv) ?? 0], x: b64u(key.get(cose.COSEKEYS.x)), y: b64u(key.get(cose.COSEKEYS.y)) };
  } else if (kty === cose.COSEKTY.OKP && cose.isCOSEPublicKeyOKP(key)) {
    jwk = { kty: "OKP", crv: "Ed25519", x: b64u(key.get(cose.COSEKEYS.x)) };
  } else if (kty === cose.COSEKTY.RSA && cose.isCOSEPublicKeyRSA(key)) {
    jwk = { kty: "RSA", n: b64u(key.get(cose.COSEKEYS.n)), e: b64u(key.get(cose.COSEKEYS.e)) };
  } else {
    throw new AppError("passkey_algorithm", "This passkey's public key is of a kind the console does not accept; try another authenticator.", 400);
  }
  const spki = createPublicKey({ key: jwk, format: "jwk" }).export({ type: "spki", format: "der" });
  return { spki: spki.toString("base64"), algorithm };
}
