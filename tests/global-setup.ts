// Placeholder replaced by the database harness (embedded PostgreSQL per test run).
export default async function setup() {}
