# ruff: noqa: E501  (the inline JavaScript is kept compact on purpose)
"""A single self-contained HTML file with an interactive entity-relation graph.

No network: the data, the styles and a small force-directed layout (written here, no library)
are inline, so the file opens from disk, offline, in any browser. Nodes are coloured by type,
edges labelled by predicate; filter by entity name and minimum relevance; click a node to list
its facts; drag nodes, drag the background to pan, wheel to zoom.
"""

from __future__ import annotations

import html

import orjson

from knowledge_engine.export.dot import COLORS
from knowledge_engine.export.graph import Graph

MAX_NODES = 1500  # a browser lays out ~1.5k nodes smoothly; larger graphs keep the most mentioned


def _payload(g: Graph, max_nodes: int) -> tuple[bytes, int]:
    ranked = sorted(g.nodes.values(), key=lambda n: (-n.count, -n.importance))
    keep = {n.id for n in ranked[:max_nodes]}
    index = {nid: i for i, nid in enumerate(n.id for n in ranked if n.id in keep)}
    nodes = [{"id": n.id, "label": n.label, "type": n.type, "count": n.count} for n in ranked if n.id in keep]
    edges = [
        {
            "s": index[e.source],
            "t": index[e.target],
            "p": e.predicate,
            "r": e.relevance,
            "v": e.valid,
            "text": e.text,
            "id": e.id,
        }
        for e in g.edges
        if e.source in index and e.target in index
    ]
    data = orjson.dumps({"nodes": nodes, "edges": edges, "colors": COLORS})
    # inside <script>: "<" escaped so no text (e.g. "</script>") can end the element
    return data.replace(b"<", b"\\u003c").replace(b"\u2028", b"\\u2028"), len(g.nodes) - len(nodes)


def render(g: Graph, title: str = "knowledge graph", max_nodes: int = MAX_NODES) -> str:
    data, dropped = _payload(g, max_nodes)
    note = f"{dropped} less mentioned nodes left out" if dropped else ""
    return (
        _TEMPLATE.replace("__TITLE__", html.escape(title))
        .replace("__NOTE__", html.escape(note))
        .replace("__DATA__", data.decode())
    )


_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
 body{margin:0;font:14px system-ui,sans-serif;display:flex;height:100vh;color:#222}
 #side{width:320px;padding:12px;border-right:1px solid #ddd;overflow:auto;box-sizing:border-box}
 #main{flex:1;position:relative} canvas{width:100%;height:100%;display:block;cursor:grab}
 input[type=text]{width:100%;box-sizing:border-box;padding:6px;margin:4px 0}
 .legend span{display:inline-block;margin:2px 6px 2px 0;font-size:12px}
 .legend i{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:3px}
 #facts li{margin:4px 0} .old{color:#999;text-decoration:line-through} small{color:#777}
</style></head><body>
<div id="side">
 <h3 style="margin:4px 0">__TITLE__</h3><small id="counts"></small> <small>__NOTE__</small>
 <label>Filter by entity name<input id="q" type="text" placeholder="e.g. Maya"></label>
 <label>Minimum relevance <b id="rv">0.00</b><input id="r" type="range" min="0" max="1" step="0.01" value="0"
  style="width:100%"></label>
 <label><input id="labels" type="checkbox" checked> edge labels</label>
 <div class="legend" id="legend"></div>
 <h4 id="sel">Click a node to see its facts</h4><ul id="facts"></ul>
</div>
<div id="main"><canvas id="c"></canvas></div>
<script id="data" type="application/json">__DATA__</script>
<script>
(function(){
"use strict";
const D=JSON.parse(document.getElementById("data").textContent);
const N=D.nodes, E=D.edges, C=D.colors;
const cv=document.getElementById("c"), ctx=cv.getContext("2d");
let W=0,H=0,scale=1,ox=0,oy=0,selected=-1,drag=null,pan=null,alpha=1;
N.forEach((n,i)=>{const a=i*2.399963,r=12*Math.sqrt(i+1);n.x=r*Math.cos(a);n.y=r*Math.sin(a);n.vx=0;n.vy=0;
  n.r=4+Math.min(14,Math.sqrt(n.count||1)*2);n.show=true;});
const adj=N.map(()=>[]);E.forEach((e,k)=>{adj[e.s].push(k);adj[e.t].push(k);});
window.knowledgeGraph={nodes:N,edges:E,select:i=>showFacts(i)};  // for the browser console (and tests)
function esc(s){return String(s).replace(/[&<>"']/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));}
function resize(){const r=cv.getBoundingClientRect();W=r.width;H=r.height;cv.width=W*devicePixelRatio;
  cv.height=H*devicePixelRatio;if(!ox&&!oy){ox=W/2;oy=H/2;}}
window.addEventListener("resize",resize);resize();
const legend=document.getElementById("legend");
[...new Set(N.map(n=>n.type))].forEach(t=>{legend.insertAdjacentHTML("beforeend",
  '<span><i style="background:'+(C[t]||"#ccc")+'"></i>'+esc(t)+'</span>');});
function edgeOn(e){return e.r>=minRel && N[e.s].show && N[e.t].show;}
let minRel=0;
function applyFilter(){
  const q=document.getElementById("q").value.trim().toLowerCase();
  minRel=parseFloat(document.getElementById("r").value);document.getElementById("rv").textContent=minRel.toFixed(2);
  const hit=N.map(n=>!q||n.label.toLowerCase().includes(q));
  N.forEach((n,i)=>{n.show=hit[i];});
  if(q){E.forEach(e=>{if(e.r>=minRel&&(hit[e.s]||hit[e.t])){N[e.s].show=true;N[e.t].show=true;}});}
  if(minRel>0){N.forEach((n,i)=>{if(!adj[i].some(k=>E[k].r>=minRel)&&!(q&&hit[i]))n.show=false;});}
  document.getElementById("counts").textContent=N.filter(n=>n.show).length+" of "+N.length+" entities, "+
    E.filter(edgeOn).length+" of "+E.length+" facts";
  alpha=Math.max(alpha,0.3);
}
document.getElementById("q").addEventListener("input",applyFilter);
document.getElementById("r").addEventListener("input",applyFilter);
document.getElementById("labels").addEventListener("change",()=>{alpha=Math.max(alpha,0.01);});
applyFilter();
function step(){
  const vis=[];N.forEach((n,i)=>{if(n.show)vis.push(i);});
  const k=60, rep=k*k*alpha;
  // repulsion on a coarse grid: only nearby cells interact, so large graphs stay interactive
  const cell=150,grid=new Map();
  vis.forEach(i=>{const n=N[i],key=Math.floor(n.x/cell)+","+Math.floor(n.y/cell);
    (grid.get(key)||grid.set(key,[]).get(key)).push(i);});
  vis.forEach(i=>{const a=N[i],gx=Math.floor(a.x/cell),gy=Math.floor(a.y/cell);
    for(let dx=-1;dx<=1;dx++)for(let dy=-1;dy<=1;dy++){const c=grid.get((gx+dx)+","+(gy+dy));if(!c)continue;
      for(const j of c){if(j<=i)continue;const b=N[j];let x=a.x-b.x,y=a.y-b.y,d2=x*x+y*y;
        if(d2<0.01){x=Math.random()-0.5;y=Math.random()-0.5;d2=0.5;}
        const f=rep/d2;a.vx+=x*f/ Math.sqrt(d2);a.vy+=y*f/Math.sqrt(d2);b.vx-=x*f/Math.sqrt(d2);b.vy-=y*f/Math.sqrt(d2);}}});
  E.forEach(e=>{if(!edgeOn(e))return;const a=N[e.s],b=N[e.t];const x=b.x-a.x,y=b.y-a.y,d=Math.sqrt(x*x+y*y)||1;
    const f=(d-k)*0.05*alpha;a.vx+=x/d*f;a.vy+=y/d*f;b.vx-=x/d*f;b.vy-=y/d*f;});
  vis.forEach(i=>{const n=N[i];n.vx-=n.x*0.002*alpha;n.vy-=n.y*0.002*alpha;
    if(drag&&drag.i===i){n.vx=0;n.vy=0;return;}
    n.vx*=0.6;n.vy*=0.6;n.x+=Math.max(-30,Math.min(30,n.vx));n.y+=Math.max(-30,Math.min(30,n.vy));});
  alpha=Math.max(0,alpha*0.985-0.0005);
}
function draw(){
  ctx.setTransform(devicePixelRatio,0,0,devicePixelRatio,0,0);ctx.clearRect(0,0,W,H);
  ctx.translate(ox,oy);ctx.scale(scale,scale);
  const labels=document.getElementById("labels").checked&&scale>0.5;
  ctx.lineWidth=1/scale;ctx.font=(11/scale)+"px system-ui";ctx.textAlign="center";
  E.forEach((e,k)=>{if(!edgeOn(e))return;const a=N[e.s],b=N[e.t];const on=selected>=0&&(e.s===selected||e.t===selected);
    ctx.strokeStyle=on?"#d33":(e.v?"rgba(80,80,80,.45)":"rgba(150,150,150,.3)");ctx.setLineDash(e.v?[]:[4/scale,4/scale]);
    ctx.beginPath();ctx.moveTo(a.x,a.y);ctx.lineTo(b.x,b.y);ctx.stroke();
    const d=Math.hypot(b.x-a.x,b.y-a.y)||1,ux=(b.x-a.x)/d,uy=(b.y-a.y)/d,tx=b.x-ux*(b.r+2),ty=b.y-uy*(b.r+2);
    ctx.beginPath();ctx.moveTo(tx,ty);ctx.lineTo(tx-ux*7/scale-uy*3/scale,ty-uy*7/scale+ux*3/scale);
    ctx.lineTo(tx-ux*7/scale+uy*3/scale,ty-uy*7/scale-ux*3/scale);ctx.fillStyle=ctx.strokeStyle;ctx.fill();
    if(labels||on){ctx.fillStyle="#555";ctx.fillText(e.p,(a.x+b.x)/2,(a.y+b.y)/2-2/scale);}});
  ctx.setLineDash([]);
  N.forEach((n,i)=>{if(!n.show)return;ctx.beginPath();ctx.arc(n.x,n.y,n.r,0,6.2832);ctx.fillStyle=C[n.type]||"#ccc";
    ctx.fill();ctx.strokeStyle=i===selected?"#d33":"#fff";ctx.lineWidth=(i===selected?3:1.5)/scale;ctx.stroke();
    ctx.fillStyle="#111";ctx.font=(i===selected?"bold ":"")+(12/scale)+"px system-ui";
    ctx.fillText(n.label,n.x,n.y-n.r-3/scale);});
}
function loop(){if(alpha>0)step();draw();requestAnimationFrame(loop);}
function world(ev){const r=cv.getBoundingClientRect();return[(ev.clientX-r.left-ox)/scale,(ev.clientY-r.top-oy)/scale];}
function nodeAt(x,y){for(let i=N.length-1;i>=0;i--){const n=N[i];if(n.show&&Math.hypot(n.x-x,n.y-y)<=n.r+3)return i;}return -1;}
function showFacts(i){selected=i;const n=N[i];
  document.getElementById("sel").textContent=n.label+" ("+n.type+")";
  document.getElementById("facts").innerHTML=adj[i].map(k=>E[k]).sort((a,b)=>b.r-a.r).map(e=>
    '<li class="'+(e.v?"":"old")+'">'+esc(e.text)+' <small>rel '+e.r.toFixed(2)+(e.v?"":", superseded")+
    '</small></li>').join("")||"<li>no facts</li>";}
cv.addEventListener("mousedown",ev=>{const[x,y]=world(ev),i=nodeAt(x,y);
  if(i>=0){drag={i:i,moved:false};}else{pan={x:ev.clientX,y:ev.clientY,ox:ox,oy:oy};}});
window.addEventListener("mousemove",ev=>{if(drag){const[x,y]=world(ev);N[drag.i].x=x;N[drag.i].y=y;drag.moved=true;
  alpha=Math.max(alpha,0.1);}else if(pan){ox=pan.ox+ev.clientX-pan.x;oy=pan.oy+ev.clientY-pan.y;}});
window.addEventListener("mouseup",()=>{if(drag&&!drag.moved)showFacts(drag.i);drag=null;pan=null;});
cv.addEventListener("wheel",ev=>{ev.preventDefault();const r=cv.getBoundingClientRect(),mx=ev.clientX-r.left,my=ev.clientY-r.top;
  const f=Math.exp(-ev.deltaY*0.001);ox=mx-(mx-ox)*f;oy=my-(my-oy)*f;scale*=f;},{passive:false});
loop();
})();
</script></body></html>
"""
