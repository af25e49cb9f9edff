import { describe, expect, it } from "vitest";
import { ipLiteralForm, isIpLiteral } from "./ip-literal";
import { emailRecipientsIn } from "./email-recipients";

describe("isIpLiteral", () => {
  it.each(["1.2.3.4", "127.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "[10.0.0.1]", "[ipv6:::1]", "::1", "fe80::1%eth0", "1.2.3.4."])(
    "%s is an IP literal",
    (h) => expect(isIpLiteral(h)).toBe(true),
  );
  it.each(["acme.example", "mail.acme.example", "0x.example", "123.example", "localhost", "xn--bcher-kva.example"])(
    "%s is a name",
    (h) => expect(isIpLiteral(h)).toBe(false),
  );
  it("names the form", () => {
    expect(ipLiteralForm("10.0.0.1")).toBe("dotted");
    expect(ipLiteralForm("[IPv6:::1]")).toBe("ipv6");
    expect(ipLiteralForm("2130706433")).toBe("encoded");
    expect(ipLiteralForm("0x7f.1")).toBe("encoded");
  });
});

describe("emailRecipientsIn", () => {
  it("finds addresses under recipient keys at any depth, lower-casing domains", () => {
    const r = emailRecipientsIn({
      to: "Ann <ann@Acme.Example>, bob@acme.example.",
      message: { cc: ["c@x.example"], recipients: [{ email: "d@y.example" }] },
      body: "not a recipient: e@z.example",
    });
    expect(r.map((x) => [x.path, x.domain])).toEqual([
      ["to", "acme.example"],
      ["to", "acme.example"],
      ["message.cc[0]", "x.example"],
      ["message.recipients[0].email", "y.example"],
    ]);
  });
  it("counts email/address keys only when asked (external-comms tools)", () => {
    expect(emailRecipientsIn({ email: "a@b.example" })).toEqual([]);
    expect(emailRecipientsIn({ email: "a@b.example" }, { commsKeys: true })).toHaveLength(1);
  });
});
