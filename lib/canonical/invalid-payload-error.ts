export type InvalidPayloadCode =
  | "payload_too_large"
  | "too_deep"
  | "invalid_utf8"
  | "syntax_error"
  | "trailing_data"
  | "duplicate_key"
  | "forbidden_key"
  | "lone_surrogate"
  | "nul_character"
  | "non_finite_number"
  | "number_underflow"
  | "unsafe_integer"
  | "unsupported_value"
  | "sparse_array"
  | "circular_reference"
  | "invalid_payload_fields";

/**
 * A payload Countersign refuses to accept or hash. `message` is written for a person
 * (it is safe to show to the client: it never echoes more than a short excerpt);
 * `path` names where in the value the problem is, e.g. `args.items[3]`.
 */
export class InvalidPayloadError extends Error {
  readonly code: InvalidPayloadCode;
  readonly path?: string;

  constructor(code: InvalidPayloadCode, message: string, path?: string) {
    super(path ? `${message} (at ${path})` : message);
    this.name = "InvalidPayloadError";
    this.code = code;
    if (path) this.path = path;
  }
}
