import "next-auth";
import "next-auth/jwt";

declare module "next-auth" {
  interface User {
    /** Set by the credentials sign-in, which starts (and audits) the Session row itself. */
    sessionId?: string;
  }
  interface Session {
    user: { id?: string };
    /** The Session row this cookie belongs to; checked against the database on every request. */
    sessionId?: string;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    /** The Session row's id. */
    sid?: string;
  }
}
