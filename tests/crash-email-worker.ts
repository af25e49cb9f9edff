/**
 * Runs one reviewer-email pass in a child process, so a test can kill it (SIGKILL, no clean-up)
 * while its email is on the wire: the SMTP server has the message, the outbox no outcome.
 */
import { createDb } from "@/lib/db/client";
import { pumpReviewerEmails } from "@/lib/notifications/reviewer-email-channel";

const [url] = process.argv.slice(2);
const db = createDb(url, { max: 2 });
await pumpReviewerEmails(db, { workerId: "killed-mid-send" });
console.log("completed without being killed");
process.exit(0);
