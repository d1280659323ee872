// An npm registry on 127.0.0.1 serving only the tarballs in one folder: the packument of each
// package (GET /<name>, a scoped name's slash encoded) and its tarball, so npm and npx install
// the packed packages exactly as they would from the public registry, with no access to it.
// Any other package is unknown (404), as the platforms' packages not built here are.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

/** Serves `folder`'s *.tgz; resolves to { url, served(), close() }. */
export async function serveRegistry(folder) {
  const tarballs = new Map();
  const manifests = new Map();
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".tgz"))) {
    const path = join(folder, file);
    const bytes = readFileSync(path);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", path, "package/package.json"], { encoding: "utf8" }));
    tarballs.set(file, bytes);
    manifests.set(manifest.name, { manifest, file, bytes });
  }
  const served = [];
  const server = createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url, "http://registry").pathname.slice(1));
    const tarball = name.startsWith("-/") && tarballs.get(name.slice(2));
    if (tarball) {
      served.push(name.slice(2));
      response.writeHead(200, { "content-type": "application/octet-stream" });
      return response.end(tarball);
    }
    const found = manifests.get(name);
    if (!found) {
      response.writeHead(404, { "content-type": "application/json" });
      return response.end(JSON.stringify({ error: "Not found" }));
    }
    const { manifest, file, bytes } = found;
    const version = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        tarball: `${url}-/${file}`,
        shasum: createHash("sha1").update(bytes).digest("hex"),
        integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      },
    };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        name: manifest.name,
        "dist-tags": { latest: manifest.version },
        versions: { [manifest.version]: version },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    served: () => [...served],
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
