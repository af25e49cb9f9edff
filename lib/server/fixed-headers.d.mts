export type FixedHeader = { key: string; value: string };
export declare const API_CONTENT_SECURITY_POLICY: string;
export declare const EVERY_RESPONSE_HEADERS: readonly FixedHeader[];
export declare const API_RESPONSE_HEADERS: readonly FixedHeader[];
