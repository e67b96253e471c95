/** The report's stylesheet, inlined in the page. */
export const REPORT_STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1f24;margin:24px auto;max-width:1000px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:15px;margin:18px 0 6px}
.meta{color:#5b606b;margin:2px 0}
.verdict{font-size:18px;font-weight:600;padding:12px 16px;border-radius:8px;margin:16px 0 8px}
.verdict.complete{background:#e5f6ea;color:#155d2b;border:1px solid #9fd8b0}
.verdict.short{background:#fdeaea;color:#8a1c1c;border:1px solid #f0a8a8}
.totals{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.total{flex:1 1 120px;border:1px solid #dde0e6;border-radius:8px;padding:8px 12px}
.total .value{font-size:20px;font-weight:650;font-variant-numeric:tabular-nums}
.total .label{color:#5b606b;font-size:12px}
.total.good .value{color:#157a35}.total.bad .value{color:#b42318}
.chart-box{overflow-x:auto}
svg.chart{display:block;max-width:100%;height:auto}
.grid{stroke:#eceef2}.axis{stroke:#9aa0ab}
.tick{font-size:11px;fill:#5b606b;font-variant-numeric:tabular-nums}
polygon.staged{fill:#c9ced8}
.short{fill:#f04438;fill-opacity:.35}
polygon.landed{fill:#16a34a;fill-opacity:.55}
polyline{fill:none;stroke-width:1.2;stroke-linejoin:round}
polyline.delivered{stroke:#2f6fde}
circle.missing{fill:#d92d20}
.hover{fill:transparent}.hover:hover{fill:#1d1f24;fill-opacity:.06}
.legend{color:#5b606b;font-size:12px}
.key{display:inline-block;width:12px;height:10px;margin:0 4px 0 12px;vertical-align:middle;border-radius:2px}
.key.staged{background:#c9ced8}.key.delivered{background:#2f6fde}.key.landed{background:#16a34a;opacity:.55}.key.short{background:#f04438;opacity:.5}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:4px 10px;border-bottom:1px solid #eceef2;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
th{font-weight:600;color:#5b606b;font-size:12px}
.empty{color:#5b606b}
`;
