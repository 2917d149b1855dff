// The dashboard's stylesheet, served as /assets/dashboard.css. Kept in TypeScript so the build ships it with the code.

export const STYLES = `
:root {
  --bg: #f5f6f8; --panel: #fff; --line: #e2e5ea; --text: #1d2330; --muted: #667085; --link: #1f5fbf;
  --pending: #1f5fbf; --pending-bg: #e7effb; --running: #9a5b00; --running-bg: #fdf1dc;
  --succeeded: #1b7a43; --succeeded-bg: #e3f4ea; --dead: #b42318; --dead-bg: #fde8e6;
  --cancelled: #5b6472; --cancelled-bg: #eceef1; --warn: #b26b00; --warn-bg: #fff6e5;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { background: #141a26; color: #e8ecf3; display: flex; align-items: center; gap: 24px; padding: 0 24px; height: 52px; }
header.top .brand { font-weight: 650; letter-spacing: .2px; color: #fff; }
header.top nav a { color: #c7cfdc; padding: 16px 2px; margin-right: 14px; border-bottom: 2px solid transparent; }
header.top nav a.active { color: #fff; border-bottom-color: #6ea8ff; }
header.top nav a:hover { text-decoration: none; color: #fff; }
header.top .right { margin-left: auto; display: flex; gap: 14px; align-items: center; color: #aab4c3; font-size: 12.5px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; }
.badge.readonly { background: #394150; color: #e8ecf3; }
main { max-width: 1320px; margin: 0 auto; padding: 22px 24px 48px; }
h1 { font-size: 20px; margin: 0 0 16px; font-weight: 650; }
h1 .sub { font-size: 13px; font-weight: 400; color: var(--muted); margin-left: 10px; }
h2 { font-size: 15px; margin: 0 0 12px; font-weight: 650; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin-bottom: 18px; }
.panel.flush { padding: 0; overflow: hidden; }
.panel.flush h2 { padding: 14px 18px 0; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; margin-bottom: 18px; }
.grid2 > .panel { margin-bottom: 0; }
@media (max-width: 980px) { .grid2 { grid-template-columns: 1fr; } }
.cards { display: grid; grid-template-columns: repeat(5, 1fr); gap: 14px; margin-bottom: 18px; }
@media (max-width: 1100px) { .cards { grid-template-columns: repeat(2, 1fr); } }
.card { background: var(--panel); border: 1px solid var(--line); border-left: 4px solid var(--succeeded); border-radius: 10px; padding: 12px 14px; }
.card.bad { border-left-color: var(--dead); background: #fffafa; }
.card.warn { border-left-color: var(--warn); }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .5px; font-weight: 600; }
.card .value { font-size: 26px; font-weight: 650; margin: 2px 0; font-variant-numeric: tabular-nums; }
.card .value a { color: inherit; }
.card .detail { color: var(--muted); font-size: 12.5px; min-height: 18px; }
.card.bad .detail { color: var(--dead); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .4px; background: #fafbfc; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.queue-row td { background: #f3f5f8; font-weight: 650; font-size: 13px; }
tr:last-child td { border-bottom: 0; }
td .zero { color: #b8bfca; }
td.alert, span.alert { color: var(--dead); font-weight: 600; }
td.warn, span.warn { color: var(--warn); font-weight: 600; }
.mono, code { font-family: var(--mono); font-size: 12.5px; }
.muted { color: var(--muted); }
.ellipsis { max-width: 420px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.pill.pending { color: var(--pending); background: var(--pending-bg); }
.pill.running { color: var(--running); background: var(--running-bg); }
.pill.succeeded { color: var(--succeeded); background: var(--succeeded-bg); }
.pill.dead { color: var(--dead); background: var(--dead-bg); }
.pill.cancelled { color: var(--cancelled); background: var(--cancelled-bg); }
.pill.expired { color: #fff; background: var(--dead); }
.notice { padding: 10px 14px; border-radius: 8px; margin-bottom: 16px; border: 1px solid; }
.notice.ok { background: var(--succeeded-bg); border-color: #b7e1c7; color: #12532e; }
.notice.warn { background: var(--warn-bg); border-color: #f3d19c; color: #7a4a00; }
.notice.bad { background: var(--dead-bg); border-color: #f5b5ae; color: #7d1a12; }
form.inline { display: inline; margin: 0; }
button, .button { font: inherit; font-size: 13px; font-weight: 600; white-space: nowrap; border-radius: 7px; padding: 5px 12px; cursor: pointer;
  border: 1px solid #c9ced6; background: #fff; color: var(--text); }
button:hover { background: #f3f5f8; }
button.primary { background: #1f5fbf; border-color: #1f5fbf; color: #fff; }
button.primary:hover { background: #1a52a6; }
button.danger { color: var(--dead); border-color: #f0b4ad; }
button.small { padding: 2px 9px; font-size: 12px; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-end; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); font-weight: 600; gap: 3px; }
.filters input, .filters select { font: inherit; font-size: 13px; padding: 5px 8px; border: 1px solid #c9ced6; border-radius: 7px; background: #fff; min-width: 150px; }
.pager { display: flex; gap: 10px; align-items: center; justify-content: flex-end; padding: 12px 18px; }
.pager .disabled { color: #b8bfca; }
dl.facts { display: grid; grid-template-columns: 170px 1fr; margin: 0; }
dl.facts dt { color: var(--muted); padding: 6px 0; border-bottom: 1px solid var(--line); }
dl.facts dd { margin: 0; padding: 6px 0; border-bottom: 1px solid var(--line); }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin: 0;
  font-family: var(--mono); font-size: 12.5px; overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-word; }
pre.error { background: #fff7f6; border-color: #f5c8c2; color: #7d1a12; }
.actions { display: flex; gap: 8px; flex-wrap: wrap; }
.title-row { display: flex; align-items: center; gap: 12px; margin-bottom: 16px; flex-wrap: wrap; }
.title-row h1 { margin: 0; }
.title-row .actions { margin-left: auto; }
#throughput-chart { min-height: 230px; }
.legend-note { color: var(--muted); font-size: 12.5px; margin: 8px 0 0; }
.legend-note.padded { padding: 0 18px 12px; }
.heading-link { color: var(--muted); font-weight: 400; font-size: 13px; margin-left: 6px; }
.heading-note { color: var(--muted); font-weight: 400; }
.uplot .u-legend { font-size: 12.5px; }
label.refresh { display: inline-flex; gap: 5px; align-items: center; cursor: pointer; }
.empty { padding: 28px 18px; color: var(--muted); text-align: center; }
`;
