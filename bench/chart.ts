// The makespan chart: measured makespan against the K·D bound, one series per setup, as a small standalone SVG.

export interface Series {
  label: string;
  color: string;
  /** [K·D in ms, makespan in ms] */
  points: [number, number][];
}

/** Draws makespan = K·D (the bound) and, when given, makespan = target × K·D (what the project allows). */
export function makespanChart(series: Series[], title: string, target?: number): string {
  const W = 640;
  const H = 420;
  const m = { left: 70, right: 20, top: 40, bottom: 60 };
  const all = series.flatMap((s) => s.points);
  const max = Math.max(1, ...all.map(([x, y]) => Math.max(x, y))) * 1.1;
  const sx = (x: number) => m.left + (x / max) * (W - m.left - m.right);
  const sy = (y: number) => H - m.bottom - (y / max) * (H - m.top - m.bottom);
  const ticks = Array.from({ length: 6 }, (_, i) => (max / 5) * i);
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="14">${esc(title)}</text>`);
  for (const t of ticks) {
    out.push(`<line x1="${sx(t)}" y1="${sy(0)}" x2="${sx(t)}" y2="${sy(max)}" stroke="#eee"/>`);
    out.push(`<line x1="${sx(0)}" y1="${sy(t)}" x2="${sx(max)}" y2="${sy(t)}" stroke="#eee"/>`);
    out.push(`<text x="${sx(t)}" y="${sy(0) + 16}" text-anchor="middle">${(t / 1000).toFixed(1)}</text>`);
    out.push(`<text x="${sx(0) - 6}" y="${sy(t) + 4}" text-anchor="end">${(t / 1000).toFixed(1)}</text>`);
  }
  out.push(`<line x1="${sx(0)}" y1="${sy(0)}" x2="${sx(max)}" y2="${sy(0)}" stroke="black"/>`);
  out.push(`<line x1="${sx(0)}" y1="${sy(0)}" x2="${sx(0)}" y2="${sy(max)}" stroke="black"/>`);
  out.push(
    `<text x="${W / 2}" y="${H - 20}" text-anchor="middle">K·D: K writes of D each, one after another (s)</text>`,
  );
  out.push(`<text x="18" y="${H / 2}" text-anchor="middle" transform="rotate(-90 18 ${H / 2})">makespan (s)</text>`);
  out.push(
    `<line x1="${sx(0)}" y1="${sy(0)}" x2="${sx(max / 1.1)}" y2="${sy(max / 1.1)}" stroke="#888" stroke-dasharray="4 4"/>`,
  );
  out.push(
    `<text x="${sx(max / 1.1) - 4}" y="${sy(max / 1.1) - 6}" text-anchor="end" fill="#666">bound: makespan = K·D</text>`,
  );
  if (target) {
    const x = max / Math.max(1.1, target * 1.05);
    out.push(
      `<line x1="${sx(0)}" y1="${sy(0)}" x2="${sx(x)}" y2="${sy(x * target)}" stroke="#2ca02c" stroke-dasharray="2 3"/>`,
    );
    out.push(
      `<text x="${sx(x) - 4}" y="${sy(x * target) - 6}" text-anchor="end" fill="#2ca02c">target: ${target} × K·D</text>`,
    );
  }
  series.forEach((s, i) => {
    const path = s.points.map(([x, y], j) => `${j === 0 ? "M" : "L"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
    out.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const [x, y] of s.points)
      out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="4" fill="${s.color}"/>`);
    out.push(`<rect x="${m.left + 10}" y="${m.top + 8 + i * 18}" width="12" height="12" fill="${s.color}"/>`);
    out.push(`<text x="${m.left + 28}" y="${m.top + 18 + i * 18}">${esc(s.label)}</text>`);
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}
