import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A WebAuthn authenticator in software for integration tests: an ES256 key pair from node:crypto
 * and the real wire format — authenticatorData (RP id hash, flags, counter, attested credential
 * data with a COSE key), clientDataJSON, a "none" attestation object in CBOR (encoded with the
 * WebAuthn library's own CBOR), and DER ECDSA signatures over authenticatorData ‖ SHA-256(clientDataJSON).
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16).toString("base64url");
  private readonly privateKey: KeyObject;
  private readonly cose: Uint8Array;
  counter = 0;

  constructor(readonly origin: string) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.cose = isoCBOR.encode(new Map<number, number | Uint8Array>([
      [1, 2], [3, -7], [-1, 1], [-2, new Uint8Array(Buffer.from(jwk.x ?? "", "base64url"))], [-3, new Uint8Array(Buffer.from(jwk.y ?? "", "base64url"))],
    ]));
  }

  private get rpID(): string {
    return new URL(this.origin).hostname;
  }

  private authData(flags: number, attested: boolean): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    const parts = [createHash("sha256").update(this.rpID).digest(), Buffer.from([flags]), counter];
    if (attested) {
      const id = Buffer.from(this.credentialId, "base64url");
      const length = Buffer.alloc(2);
      length.writeUInt16BE(id.length);
      parts.push(Buffer.alloc(16), length, id, Buffer.from(this.cose));
    }
    return Buffer.concat(parts);
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }), "utf8");
  }

  /** Answers registration options, as navigator.credentials.create would (UP and UV set). */
  register(options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON {
    const attestationObject = isoCBOR.encode(new Map<string, Parameters<typeof isoCBOR.encode>[0]>([["fmt", "none"], ["attStmt", new Map<string, Parameters<typeof isoCBOR.encode>[0]>()], ["authData", new Uint8Array(this.authData(0x45, true))]]));
    return {
      id: this.credentialId, rawId: this.credentialId, type: "public-key", clientExtensionResults: {},
      response: {
        clientDataJSON: this.clientData("webauthn.create", options.challenge).toString("base64url"),
        attestationObject: Buffer.from(attestationObject).toString("base64url"),
        transports: ["internal"],
      },
    };
  }

  /**
   * Signs `challenge` (base64url), as navigator.credentials.get would. `userVerified: false` clears
   * the UV flag; the counter rises by one unless `keepCounter`.
   */
  assert(challenge: string, options: { userVerified?: boolean; keepCounter?: boolean } = {}): AuthenticationResponseJSON {
    if (!options.keepCounter) this.counter += 1;
    const authData = this.authData(options.userVerified === false ? 0x01 : 0x05, false);
    const clientData = this.clientData("webauthn.get", challenge);
    const signature = sign("sha256", Buffer.concat([authData, createHash("sha256").update(clientData).digest()]), this.privateKey);
    return {
      id: this.credentialId, rawId: this.credentialId, type: "public-key", clientExtensionResults: {},
      response: { clientDataJSON: clientData.toString("base64url"), authenticatorData: authData.toString("base64url"), signature: signature.toString("base64url") },
    };
  }
}
