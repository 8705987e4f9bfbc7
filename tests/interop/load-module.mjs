// Imports an npm package from the folders in NODE_PATH (ESM ignores
// NODE_PATH), then by normal resolution.  When a package is found but fails
// to load (an old Node.js, a missing binary), that error is the one thrown,
// not a misleading "cannot find package".
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";

export async function loadModule(name) {
    const bases = (process.env.NODE_PATH || "").split(path.delimiter).filter(Boolean);
    for (const b of bases) {
        let resolved;
        try {
            resolved = createRequire(path.join(path.resolve(b), "noop.js")).resolve(name);
        } catch (e) {
            continue;   // not in this folder
        }
        return await import(resolved);
    }
    return await import(name);
}
