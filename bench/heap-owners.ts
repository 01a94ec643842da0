// What holds a heap snapshot's memory: each object's retained size (itself and all that only it keeps alive, by the
// dominator tree), the largest first, with what holds it. The view that found a metric labelled per scale set
// holding 11 MB, which counting objects by kind did not show. Snapshots come from bench/memory.ts --snapshot, or
// from any process started with --heapsnapshot-signal.
//
//   node --max-old-space-size=4096 bench/heap-owners.ts <file.heapsnapshot> [--min-kb N] [--top N]
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const file = args[0];
if (!file || file.startsWith("--"))
  throw new Error("usage: bench/heap-owners.ts <file.heapsnapshot> [--min-kb N] [--top N]");
const MIN_BYTES = option("--min-kb", 250) * 1024;
const TOP = option("--top", 40);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}
const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
const NF = s.snapshot.meta.node_fields.length;
const EF = s.snapshot.meta.edge_fields.length;
const nodeTypes = s.snapshot.meta.node_types[0];
const WEAK = s.snapshot.meta.edge_types[0].indexOf("weak");
const { nodes, edges, strings } = s;
const n = nodes.length / NF;
const selfSize = (v: number) => nodes[v * NF + 3];

const firstEdge = new Uint32Array(n + 1);
for (let v = 0, e = 0; v < n; v++) {
  firstEdge[v] = e;
  e += nodes[v * NF + 4] * EF;
}
firstEdge[n] = edges.length;
const strongTargets = function* (v: number) {
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) if (edges[e] !== WEAK) yield edges[e + 2] / NF;
};

// Depth-first from the root (node 0): the post-order numbers the dominator algorithm walks by.
const postNumber = new Int32Array(n).fill(-1);
const postOrder: number[] = [];
const seen = new Uint8Array(n);
const stack: [number, Generator<number>][] = [[0, strongTargets(0)]];
seen[0] = 1;
while (stack.length) {
  const [v, it] = stack[stack.length - 1];
  const next = it.next();
  if (next.done) {
    stack.pop();
    postNumber[v] = postOrder.length;
    postOrder.push(v);
  } else if (!seen[next.value]) {
    seen[next.value] = 1;
    stack.push([next.value, strongTargets(next.value)]);
  }
}

// Predecessors of the reachable nodes, then the immediate dominators (Cooper, Harvey and Kennedy's iteration).
const predStart = new Uint32Array(n + 1);
for (const v of postOrder) for (const w of strongTargets(v)) predStart[w + 1]++;
for (let v = 0; v < n; v++) predStart[v + 1] += predStart[v];
const preds = new Uint32Array(predStart[n]);
const fill = predStart.slice();
for (const v of postOrder) for (const w of strongTargets(v)) preds[fill[w]++] = v;
const idom = new Int32Array(n).fill(-1);
idom[0] = 0;
for (let changed = true; changed;) {
  changed = false;
  for (let k = postOrder.length - 1; k >= 0; k--) {
    const b = postOrder[k];
    if (b === 0) continue;
    let dom = -1;
    for (let p = predStart[b]; p < predStart[b + 1]; p++) {
      let q = preds[p];
      if (idom[q] === -1) continue;
      if (dom === -1) {
        dom = q;
        continue;
      }
      let d = dom;
      while (q !== d) {
        while (postNumber[q] < postNumber[d]) q = idom[q];
        while (postNumber[d] < postNumber[q]) d = idom[d];
      }
      dom = q;
    }
    if (dom !== idom[b]) {
      idom[b] = dom;
      changed = true;
    }
  }
}
const retained = new Float64Array(n);
for (const v of postOrder) retained[v] += selfSize(v);
for (const v of postOrder) if (v !== 0) retained[idom[v]] += retained[v];

const describe = (v: number) =>
  `${nodeTypes[nodes[v * NF]]} ${String(strings[nodes[v * NF + 1]])
    .slice(0, 48)
    .replace(/\s+/g, " ")}`;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2).padStart(7);
console.log(
  `${mb(retained[0])} MB reachable from the roots; objects retaining ${MIN_BYTES / 1024} KB or more (MB, what, held by):`,
);
// Objects and closures (V8's internal arrays and the like are counted in what holds them, not listed); a chain such
// as a cache, its Map and the Map's table shows as consecutive lines of about the same size.
const LISTED_TYPES = new Set(["object", "closure", "string", "native", "code", "regexp"]);
const listed = postOrder
  .filter((v) => v !== 0 && retained[v] >= MIN_BYTES && LISTED_TYPES.has(nodeTypes[nodes[v * NF]]))
  .sort((a, b) => retained[b] - retained[a])
  .slice(0, TOP);
for (const v of listed) console.log(`${mb(retained[v])}  ${describe(v)}  <- ${describe(idom[v])}`);
