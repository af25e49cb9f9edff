import { describe, expect, it } from "vitest";
import { socketDirFor } from "@/lib/db/embedded-postgres";

describe("the bundled cluster's Unix socket", () => {
  it("goes in the cluster's own directory", () => {
    expect(socketDirFor("/srv/countersign/.data/pg", 54_321, "linux")).toBe("/srv/countersign/.data/pg");
  });

  it("is left out, for TCP only, where a socket path would be too long or the directory cannot be named", () => {
    expect(socketDirFor(`/home/${"deeply-nested/".repeat(7)}pg`, 54_321, "linux")).toBeNull();
    for (const dir of ["/srv/a,b/pg", "/srv/my data/pg", "/srv/o'brien/pg", '/srv/"x"/pg', "/srv/a\\b/pg"]) {
      expect(socketDirFor(dir, 54_321, "linux")).toBeNull();
    }
    expect(socketDirFor("C:/countersign/pg", 54_321, "win32")).toBeNull();
  });
});
