import { graphSvg } from './graph-svg.js';
import type { ReportData } from './report-data.js';
import { escapeHtml, PALETTE, tablesHtml } from './report-tables.js';

/**
 * Everything the report shows below the Gantt: the task graph and the tables. Called by
 * `reportHtml` and by the dashboard on every update (it replaces the page's `#tables`).
 */
export function sectionsHtml(data: ReportData): string {
  return graphSvg(data.graph) + tablesHtml(data);
}

/** Options of the report page. */
export interface PageOptions {
  /** The page title. */
  title: string;
  /** Server-sent events URL to follow for live updates (the dashboard); none for a file. */
  live?: string;
  /** The dashboard's live panels (`panelsHtml`), shown above the timeline; none for a file. */
  panels?: string;
}

/**
 * One self-contained HTML page (styles and script inline, no network) for `data`; called by
 * `writeReport` and the dashboard. The data is embedded as JSON in a
 * `<script type="application/json" id="dtask-data">`; the Gantt is drawn on a `<canvas>`,
 * and once drawn `document.body.dataset.bars` and `dataset.lanes` hold what it drew.
 */
export function reportHtml(data: ReportData, options: PageOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style></head>
<body${options.live === undefined ? '' : ` data-live="${escapeHtml(options.live)}"`}>
<h1>${escapeHtml(options.title)}</h1>
${options.panels === undefined ? '' : `<div id="panels">${options.panels}</div>`}
<section><h2>Timeline</h2><p class="hint">Wheel to zoom, drag to pan, hover a bar for details.</p>
<div id="gantt-wrap"><canvas id="gantt"></canvas><div id="tip" hidden></div></div></section>
<div id="tables">${sectionsHtml(data)}</div>
<script type="application/json" id="dtask-data">${embedJson(data)}</script>
<script>${CLIENT}</script>
</body></html>
`;
}

/** JSON safe inside a `<script>` element (no `</script>`, no U+2028/2029 surprises). */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const STYLE = `
body{font:13px system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}
h1{font-size:18px}h2{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
#gantt-wrap{position:relative;background:#fff;border:1px solid #ddd}
canvas{display:block;width:100%;cursor:crosshair}
#tip{position:absolute;pointer-events:none;background:#222;color:#fff;padding:4px 6px;border-radius:3px;font-size:12px;white-space:pre}
.meter{display:inline-block;width:120px;height:9px;background:#eee;vertical-align:middle}
.meter span{display:block;height:100%;background:#4a8}
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px}
.hint{color:#777;margin:0 0 4px}
.graph-wrap{overflow:auto;max-height:520px;background:#fff;border:1px solid #ddd}
#graph text{font:11px system-ui,sans-serif;fill:#222}
.stack{display:inline-flex;width:240px;height:12px;background:#eee;vertical-align:middle}
.stack span{display:block;height:100%}
.done{background:#59a14f}.failed{background:#d33}.running{background:#4e79a7}.queued{background:#bab0ac}
#panels{display:flex;flex-wrap:wrap;gap:24px}
`;

// The page's script: plain ES2017, no dependencies. Bars are indexed per lane (and sub-row)
// and sorted by start, so hovering is a binary search and drawing skips bars outside the view; bars
// narrower than a pixel are merged into one pixel column per lane.
const CLIENT = `(function(){
var W=7,LANE=22,ROW=12,MAXROWS=8,TOP=20,LEFT=110;
var canvas=document.getElementById('gantt'),ctx=canvas.getContext('2d'),tip=document.getElementById('tip');
var data,lanes,tops,height,colours,inputsOf,view={t0:0,t1:1};
var PALETTE=${JSON.stringify(PALETTE)};
function colour(n,i){return i<PALETTE.length?PALETTE[i]:'hsl('+Math.round((200+i*137.508)%360)+',55%,60%)';}
function load(d){
  data=d;inputsOf=null;var b=d.bars,byLane=d.processors.map(function(){return [];});
  for(var i=0;i<b.length;i+=W)byLane[b[i+2]].push(i);
  // Tasks that overlap on one processor go to sub-rows (at most MAXROWS; then the row
  // that frees first), so every bar stays visible.
  lanes=byLane.map(function(l){
    l.sort(function(x,y){return b[x+3]-b[y+3];});
    var rows=[],ends=[];
    l.forEach(function(i){var r=-1,best=0;
      for(var k=0;k<ends.length;k++){if(ends[k]<=b[i+3]){r=k;break;}if(ends[k]<ends[best])best=k;}
      if(r<0){if(rows.length<MAXROWS){r=rows.length;rows.push([]);ends.push(0);}else r=best;}
      rows[r].push(i);ends[r]=Math.max(ends[r],b[i+3]+b[i+4]);});
    return rows.length?rows:[[]];
  });
  tops=[];var y=TOP;lanes.forEach(function(rows){tops.push(y);y+=laneHeight(rows);});height=y+4;
  colours=d.names.map(colour);
  view={t0:0,t1:Math.max(d.summary.wallTime,1e-3)};
  document.body.dataset.bars=String(b.length/W);document.body.dataset.lanes=String(lanes.length);
  draw();
}
function laneHeight(rows){return Math.max(LANE,rows.length*ROW+6);}
function draw(){
  var w=canvas.clientWidth||800,h=height,dpr=window.devicePixelRatio||1;
  canvas.width=w*dpr;canvas.height=h*dpr;canvas.style.height=h+'px';ctx.setTransform(dpr,0,0,dpr,0,0);
  ctx.clearRect(0,0,w,h);ctx.font='11px sans-serif';ctx.fillStyle='#555';
  var span=view.t1-view.t0,scale=(w-LEFT)/span,b=data.bars;
  for(var k=0;k<=5;k++){var x=LEFT+k*(w-LEFT)/5;ctx.fillText((view.t0+k*span/5).toFixed(1)+' ms',Math.min(x,w-50),12);ctx.fillRect(x,TOP-4,1,4);}
  lanes.forEach(function(rows,p){
    var y=tops[p],lh=laneHeight(rows),rh=(lh-6)/rows.length;
    ctx.fillStyle=p%2?'#f4f4f4':'#fff';ctx.fillRect(LEFT,y,w-LEFT,lh);
    ctx.fillStyle='#333';ctx.fillText(data.processors[p],4,y+14);
    rows.forEach(function(l,r){var lastPx=-1,ry=y+3+r*rh;
      for(var j=0;j<l.length;j++){var i=l[j],s=b[i+3],e=s+b[i+4];
        if(e<view.t0)continue;if(s>view.t1)break;
        var x0=LEFT+(s-view.t0)*scale,x1=LEFT+(e-view.t0)*scale;
        if(x1-x0<1){var px=Math.floor(x0);if(px===lastPx)continue;lastPx=px;x1=x0+1;}
        var xs=Math.max(x0,LEFT);
        ctx.fillStyle=b[i+5]===1?'#d33':colours[b[i+1]];ctx.fillRect(xs,ry,Math.max(1,x1-xs),Math.max(1,rh-1));
      }
    });
  });
}
function barAt(mx,my){
  if(mx<LEFT)return -1;var p=-1;
  for(var q=0;q<tops.length;q++)if(my>=tops[q]&&my<tops[q]+laneHeight(lanes[q]))p=q;
  if(p<0)return -1;
  var rows=lanes[p],rh=(laneHeight(rows)-6)/rows.length,r=Math.floor((my-tops[p]-3)/rh);
  if(r<0||r>=rows.length)return -1;
  var w=canvas.clientWidth,t=view.t0+(mx-LEFT)*(view.t1-view.t0)/(w-LEFT),l=rows[r],b=data.bars,lo=0,hi=l.length-1,tol=2*(view.t1-view.t0)/(w-LEFT);
  while(lo<=hi){var m=(lo+hi)>>1;if(b[l[m]+3]<=t)lo=m+1;else hi=m-1;}
  for(var j=hi;j>=0&&j>hi-50;j--){var i=l[j];if(b[i+3]<=t&&b[i+3]+b[i+4]+tol>=t)return i;}
  return -1;
}
// 'inputs: #3 fill, #4 fill' for a task, from data.inputs (indexed on first hover).
function inputsText(task){
  if(!inputsOf){inputsOf=new Map();var f=data.inputs,b=data.bars,k=0;
    while(k<f.length){inputsOf.set(f[k],f.slice(k+2,k+2+f[k+1]));k+=2+f[k+1];}
    inputsOf.names=new Map();for(var j=0;j<b.length;j+=W)inputsOf.names.set(b[j],data.names[b[j+1]]);}
  var list=inputsOf.get(task);if(!list||!list.length)return '';
  var shown=list.slice(0,5).map(function(t){var n=inputsOf.names.get(t);return '#'+t+(n?' '+n:'');});
  return '\\ninputs: '+shown.join(', ')+(list.length>5?' and '+(list.length-5)+' more':'');
}
var drag=null;
canvas.addEventListener('mousemove',function(ev){
  var r=canvas.getBoundingClientRect(),mx=ev.clientX-r.left,my=ev.clientY-r.top;
  if(drag){var dt=(drag.x-mx)*(view.t1-view.t0)/(canvas.clientWidth-LEFT);view.t0+=dt;view.t1+=dt;drag.x=mx;draw();return;}
  var i=barAt(mx,my);if(i<0){tip.hidden=true;return;}
  var b=data.bars,st=['finished','failed','cancelled','running'][b[i+5]];
  tip.textContent=data.names[b[i+1]]+' #'+b[i]+'\\n'+data.processors[b[i+2]]+'\\n'+b[i+4].toFixed(3)+' ms, '+st+(b[i+6]>=0?'\\nresult '+b[i+6]+' B':'')+inputsText(b[i]);
  tip.style.left=(mx+12)+'px';tip.style.top=(my+12)+'px';tip.hidden=false;
});
canvas.addEventListener('mousedown',function(ev){drag={x:ev.clientX-canvas.getBoundingClientRect().left};});
window.addEventListener('mouseup',function(){drag=null;});
canvas.addEventListener('mouseleave',function(){tip.hidden=true;});
canvas.addEventListener('wheel',function(ev){ev.preventDefault();
  var r=canvas.getBoundingClientRect(),f=ev.deltaY>0?1.25:0.8,t=view.t0+(ev.clientX-r.left-LEFT)*(view.t1-view.t0)/(canvas.clientWidth-LEFT);
  view.t0=t-(t-view.t0)*f;view.t1=t+(view.t1-t)*f;draw();},{passive:false});
window.addEventListener('resize',draw);
window.dtaskReport={load:load,draw:draw,get data(){return data;}};
load(JSON.parse(document.getElementById('dtask-data').textContent));
var live=document.body.dataset.live;
if(live&&window.EventSource){var es=new EventSource(live);es.onmessage=function(m){var u=JSON.parse(m.data),p=document.getElementById('panels');if(p&&u.panels!==undefined)p.innerHTML=u.panels;if(u.data){document.getElementById('tables').innerHTML=u.tables;load(u.data);}};}
})();`;
