import { z } from "zod";

const b64url = z.string().regex(/^[A-Za-z0-9_-]*$/, "base64url").max(20_000);
const transports = z.array(z.enum(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"])).max(10);
const attachment = z.enum(["platform", "cross-platform"]);
// Extension outputs are not used; browsers report some (credProps) unasked.
const extensions = z.record(z.string(), z.unknown());

/** What both responses carry beside their `response`. */
const credential = {
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal("public-key"),
  authenticatorAttachment: attachment.optional(),
  clientExtensionResults: extensions,
};

/** What @simplewebauthn/browser's startRegistration returns (unknown keys refused). */
export const RegistrationResponseSchema = z.strictObject({
  ...credential,
  response: z.strictObject({
    clientDataJSON: b64url,
    attestationObject: b64url,
    authenticatorData: b64url.optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url.optional(),
  }),
});

/** What @simplewebauthn/browser's startAuthentication returns (unknown keys refused). */
export const AuthenticationResponseSchema = z.strictObject({
  ...credential,
  response: z.strictObject({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
});
