// vmssops_tasks_total{outcome="canceled"} counts every task that ends canceled, a queued one nobody had started too.
import t from "tap";
import { demo, startTestEnv } from "./helpers/service.ts";

/** The sum of a counter's series whose labels include `labels`. */
async function counter(baseUrl: string, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[3]);
  }
  return total;
}

t.test(
  "a queued task canceled before it started is counted as canceled, under the operation it stopped before",
  async (t) => {
    const env = await startTestEnv({ writeDurationMs: 300 });
    t.teardown(() => env.close());
    const submit = async (desired: number) => {
      const res = await env.api(
        "POST",
        "/azure/ops/resizeServerGroup",
        demo("web-prod-v001", { capacity: { min: 1, max: 8, desired } }),
      );
      if (res.status !== 202) throw new Error(JSON.stringify(res.body));
      return res.body.id as string;
    };
    const first = await submit(3);
    const second = await submit(7);
    const canceled = await env.api("POST", `/task/${second}/cancel`);
    t.equal(canceled.body.state, "canceled", "it had not started: canceled at once");
    t.equal((await env.waitForTask(first)).state, "succeeded");
    const labels = { operation: "resizeServerGroup", account: "demo" };
    t.equal(await counter(env.baseUrl, "vmssops_tasks_total", { ...labels, outcome: "canceled" }), 1);
    t.equal(await counter(env.baseUrl, "vmssops_tasks_total", { ...labels, outcome: "succeeded" }), 1);
  },
);
