# ruff: noqa: E501  (the inline JavaScript is kept compact on purpose)
"""A single self-contained HTML file with an interactive entity-relation graph.

No network: the data, the styles and a small force-directed layout (written here, no library)
are inline, so the file opens from disk, offline, in any browser. The default view shows people,
places, organisations and products and whatever their facts connect; unconnected dates, amounts
and other values stay hidden until "show unconnected values" is ticked. Nodes repel and collide
with room for their labels, and a label that would overlap one already drawn (more mentioned
first) is left out. Filter by entity name and minimum relevance; click a node for its fact
history over time (superseded facts included, with the dates they were valid); drag nodes, drag
the background to pan, wheel to zoom. Every stored string is data: JSON in a script element with
"<" escaped, HTML-escaped before innerHTML, drawn on the canvas as text.
"""

from __future__ import annotations

import html
from typing import Any

import orjson

from knowledge_engine.export.dot import COLORS
from knowledge_engine.export.graph import Edge, Graph

MAX_NODES = 1500  # a browser lays out ~1.5k nodes smoothly; larger graphs keep the most mentioned
MAIN_TYPES = ("person", "organization", "location", "product")  # always shown, connected or not


def _edge(e: Edge, index: dict[str, int]) -> dict[str, Any]:
    return {
        "s": index.get(e.source, -1),
        "t": index.get(e.target, -1),
        "p": e.predicate,
        "r": e.relevance,
        "v": e.valid,
        "text": e.text,
        "id": e.id,
        "from": e.valid_from,
        "to": e.valid_to,
    }


def _payload(g: Graph, max_nodes: int) -> tuple[bytes, int]:
    ranked = sorted(g.nodes.values(), key=lambda n: (-n.count, -n.importance))
    keep = {n.id for n in ranked[:max_nodes]}
    index = {nid: i for i, nid in enumerate(n.id for n in ranked if n.id in keep)}
    nodes = [{"id": n.id, "label": n.label, "type": n.type, "count": n.count} for n in ranked if n.id in keep]
    edges = [_edge(e, index) for e in g.edges if e.source in index and e.target in index]
    history = [_edge(e, index) for e in g.history if e.source in index or e.target in index]
    payload = {"nodes": nodes, "edges": edges, "history": history, "colors": COLORS, "main": MAIN_TYPES}
    data = orjson.dumps(payload)
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
 #side{width:340px;padding:12px;border-right:1px solid #ddd;overflow:auto;box-sizing:border-box}
 #main{flex:1;position:relative} canvas{width:100%;height:100%;display:block;cursor:grab}
 input[type=text]{width:100%;box-sizing:border-box;padding:6px;margin:4px 0} label{display:block;margin:4px 0}
 .legend span{display:inline-block;margin:2px 6px 2px 0;font-size:12px}
 .legend i{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:3px}
 #facts{padding-left:16px} #facts ul{padding-left:14px;margin:2px 0 6px} #facts li{margin:3px 0}
 .old{color:#999} .old span{text-decoration:line-through} small{color:#777}
</style></head><body>
<div id="side">
 <h3 style="margin:4px 0">__TITLE__</h3><small id="counts"></small> <small>__NOTE__</small>
 <label>Filter by entity name<input id="q" type="text" placeholder="e.g. Maya"></label>
 <label>Minimum relevance <b id="rv">0.00</b><input id="r" type="range" min="0" max="1" step="0.01" value="0"
  style="width:100%"></label>
 <label><input id="all" type="checkbox"> show unconnected dates, amounts and other values</label>
 <label><input id="labels" type="checkbox" checked> edge labels</label>
 <div class="legend" id="legend"></div>
 <h4 id="sel">Click a node to see its fact history</h4><ul id="facts"></ul>
</div>
<div id="main"><canvas id="c"></canvas></div>
<script id="data" type="application/json">__DATA__</script>
<script>
(function(){
"use strict";
const D=JSON.parse(document.getElementById("data").textContent);
const N=D.nodes, E=D.edges, HI=D.history||[], C=D.colors, MAIN=new Set(D.main||[]);
const $=id=>document.getElementById(id);
const cv=$("c"), ctx=cv.getContext("2d");
let W=0,H=0,scale=1,ox=0,oy=0,selected=-1,drag=null,pan=null,alpha=1,minRel=0,placed=[];
const adj=N.map(()=>[]);E.forEach((e,k)=>{adj[e.s].push(k);adj[e.t].push(k);});
const main=i=>MAIN.has(N[i].type);
// label width in screen pixels at 12px (measured when the canvas can, else estimated)
function textWidth(s){ctx.font="12px system-ui";const m=ctx.measureText&&ctx.measureText(s);
  return (m&&m.width)||s.length*6.6;}
// connected nodes start on a spiral, unconnected ones on an outer ring: nothing starts piled at the centre
const linked=N.map((n,i)=>adj[i].length>0), nl=linked.filter(Boolean).length;
let li=0,ui=0;
N.forEach((n,i)=>{n.r=4+Math.min(14,Math.sqrt(n.count||1)*2);n.lw=textWidth(String(n.label))+6;n.vx=0;n.vy=0;n.show=true;
  if(linked[i]){const a=li*2.399963,r=34*Math.sqrt(++li);n.x=r*Math.cos(a);n.y=r*Math.sin(a);}
  else{const R=34*Math.sqrt(nl+1)+120+8*Math.floor(ui/40),a=(ui++)*2.399963;n.x=R*Math.cos(a);n.y=R*Math.sin(a);}
  n.ring=!linked[i];});
function esc(s){return String(s==null?"":s).replace(/[&<>"']/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));}
function resize(){const r=cv.getBoundingClientRect();W=r.width;H=r.height;cv.width=W*devicePixelRatio;
  cv.height=H*devicePixelRatio;if(!ox&&!oy){ox=W/2;oy=H/2;}}
window.addEventListener("resize",resize);resize();
const legend=$("legend");
[...new Set(N.map(n=>n.type))].forEach(t=>{legend.insertAdjacentHTML("beforeend",
  '<span><i style="background:'+esc(C[t]||"#ccc")+'"></i>'+esc(t)+'</span>');});
function edgeOn(e){return e.r>=minRel && N[e.s].show && N[e.t].show;}
function applyFilter(){
  const q=$("q").value.trim().toLowerCase(), all=$("all").checked;
  minRel=parseFloat($("r").value);$("rv").textContent=minRel.toFixed(2);
  const hit=N.map(n=>!q||String(n.label).toLowerCase().includes(q));
  // by default: people, places, organisations, products, and what their facts connect
  N.forEach((n,i)=>{n.show=hit[i]&&(!!q||all||main(i)||linked[i]);});
  if(q){E.forEach(e=>{if(e.r>=minRel&&(hit[e.s]||hit[e.t])){N[e.s].show=true;N[e.t].show=true;}});}
  if(minRel>0){N.forEach((n,i)=>{if(!adj[i].some(k=>E[k].r>=minRel)&&!(q&&hit[i]))n.show=false;});}
  $("counts").textContent=N.filter(n=>n.show).length+" of "+N.length+" entities, "+
    E.filter(edgeOn).length+" of "+E.length+" facts";
  alpha=Math.max(alpha,0.3);
}
["q","r"].forEach(id=>$(id).addEventListener("input",applyFilter));
$("all").addEventListener("change",applyFilter);
$("labels").addEventListener("change",()=>{alpha=Math.max(alpha,0.01);});
applyFilter();
// collision radius: the node, or half its label when that is wider (labels need room too)
const hit2=n=>Math.max(n.r,Math.min(70,n.lw/2))+4;
function step(){
  const vis=[];N.forEach((n,i)=>{if(n.show)vis.push(i);});
  const k=70, rep=k*k*alpha;
  // repulsion and collision on a coarse grid: only nearby cells interact, so large graphs stay interactive
  const cell=160,grid=new Map();
  vis.forEach(i=>{const n=N[i],key=Math.floor(n.x/cell)+","+Math.floor(n.y/cell);
    (grid.get(key)||grid.set(key,[]).get(key)).push(i);});
  vis.forEach(i=>{const a=N[i],gx=Math.floor(a.x/cell),gy=Math.floor(a.y/cell);
    for(let dx=-1;dx<=1;dx++)for(let dy=-1;dy<=1;dy++){const c=grid.get((gx+dx)+","+(gy+dy));if(!c)continue;
      for(const j of c){if(j<=i)continue;const b=N[j];let x=a.x-b.x,y=a.y-b.y,d2=x*x+y*y;
        if(d2<0.01){x=Math.random()-0.5;y=Math.random()-0.5;d2=0.5;}
        const d=Math.sqrt(d2),f=rep/d2;a.vx+=x/d*f;a.vy+=y/d*f;b.vx-=x/d*f;b.vy-=y/d*f;
        const need=hit2(a)+hit2(b);
        if(d<need){const p=(need-d)/2*0.6;a.x+=x/d*p;a.y+=y/d*p;b.x-=x/d*p;b.y-=y/d*p;}}}});
  E.forEach(e=>{if(!edgeOn(e))return;const a=N[e.s],b=N[e.t];const x=b.x-a.x,y=b.y-a.y,d=Math.sqrt(x*x+y*y)||1;
    const f=(d-k-(hit2(a)+hit2(b))/2)*0.05*alpha;a.vx+=x/d*f;a.vy+=y/d*f;b.vx-=x/d*f;b.vy-=y/d*f;});
  const ringR=34*Math.sqrt(nl+1)+120;
  vis.forEach(i=>{const n=N[i];
    if(n.ring){const d=Math.hypot(n.x,n.y)||1,f=(d-ringR)/d*0.01*alpha;n.vx-=n.x*f;n.vy-=n.y*f;}
    else{n.vx-=n.x*0.002*alpha;n.vy-=n.y*0.002*alpha;}
    if(drag&&drag.i===i){n.vx=0;n.vy=0;return;}
    n.vx*=0.6;n.vy*=0.6;n.x+=Math.max(-30,Math.min(30,n.vx));n.y+=Math.max(-30,Math.min(30,n.vy));});
  alpha=Math.max(0,alpha*0.985-0.0005);
}
// a label is drawn only where it overlaps no label already drawn (screen boxes; selected, then most mentioned first)
function free(b){return !placed.some(p=>b.x<p.x+p.w&&p.x<b.x+b.w&&b.y<p.y+p.h&&p.y<b.y+b.h);}
function label(text,wx,wy,w,force,kind){const sx=wx*scale+ox,sy=wy*scale+oy,b={x:sx-w/2,y:sy-12,w:w,h:14,text:text,kind:kind};
  if(!force&&!free(b))return false;placed.push(b);ctx.fillText(text,wx,wy);return true;}
function draw(){
  placed=[];
  ctx.setTransform(devicePixelRatio,0,0,devicePixelRatio,0,0);ctx.clearRect(0,0,W,H);
  ctx.translate(ox,oy);ctx.scale(scale,scale);
  ctx.lineWidth=1/scale;ctx.textAlign="center";
  E.forEach(e=>{if(!edgeOn(e))return;const a=N[e.s],b=N[e.t];const on=selected>=0&&(e.s===selected||e.t===selected);
    ctx.strokeStyle=on?"#d33":(e.v?"rgba(80,80,80,.45)":"rgba(150,150,150,.3)");ctx.setLineDash(e.v?[]:[4/scale,4/scale]);
    ctx.beginPath();ctx.moveTo(a.x,a.y);ctx.lineTo(b.x,b.y);ctx.stroke();
    const d=Math.hypot(b.x-a.x,b.y-a.y)||1,ux=(b.x-a.x)/d,uy=(b.y-a.y)/d,tx=b.x-ux*(b.r+2),ty=b.y-uy*(b.r+2);
    ctx.beginPath();ctx.moveTo(tx,ty);ctx.lineTo(tx-ux*7/scale-uy*3/scale,ty-uy*7/scale+ux*3/scale);
    ctx.lineTo(tx-ux*7/scale+uy*3/scale,ty-uy*7/scale-ux*3/scale);ctx.fillStyle=ctx.strokeStyle;ctx.fill();});
  ctx.setLineDash([]);
  const order=[];N.forEach((n,i)=>{if(n.show)order.push(i);});
  order.forEach(i=>{const n=N[i];ctx.beginPath();ctx.arc(n.x,n.y,n.r,0,6.2832);ctx.fillStyle=C[n.type]||"#ccc";
    ctx.fill();ctx.strokeStyle=i===selected?"#d33":"#fff";ctx.lineWidth=(i===selected?3:1.5)/scale;ctx.stroke();});
  order.sort((a,b)=>(b===selected)-(a===selected)||main(b)-main(a)||(N[b].count||0)-(N[a].count||0));
  ctx.fillStyle="#111";
  order.forEach(i=>{const n=N[i];ctx.font=(i===selected?"bold ":"")+(12/scale)+"px system-ui";
    label(String(n.label),n.x,n.y-n.r-3/scale,n.lw,i===selected,"node");});
  if($("labels").checked&&scale>0.5){ctx.fillStyle="#555";ctx.font=(11/scale)+"px system-ui";
    E.forEach(e=>{if(!edgeOn(e))return;const a=N[e.s],b=N[e.t];
      label(String(e.p),(a.x+b.x)/2,(a.y+b.y)/2-2/scale,String(e.p).length*6+6,false,"edge");});}
}
function loop(){if(alpha>0)step();draw();requestAnimationFrame(loop);}
function world(ev){const r=cv.getBoundingClientRect();return[(ev.clientX-r.left-ox)/scale,(ev.clientY-r.top-oy)/scale];}
function nodeAt(x,y){for(let i=N.length-1;i>=0;i--){const n=N[i];if(n.show&&Math.hypot(n.x-x,n.y-y)<=n.r+3)return i;}return -1;}
// a node's facts over time: grouped by relation, newest first, superseded ones with the dates they held
function when(e){return (e.from||"?")+" \u2192 "+(e.to||"now");}
function showFacts(i){selected=i;const n=N[i];
  $("sel").textContent=n.label+" ("+n.type+") \u2014 fact history";
  const rows=adj[i].map(k=>E[k]).concat(HI.filter(h=>h.s===i||h.t===i)), groups=new Map();
  rows.forEach(e=>{const key=(e.s===i?"":"\u2190 ")+e.p;(groups.get(key)||groups.set(key,[]).get(key)).push(e);});
  $("facts").innerHTML=[...groups].map(([key,es])=>{
    es.sort((a,b)=>(b.v-a.v)||String(b.from||"").localeCompare(String(a.from||""))||b.r-a.r);
    return '<li><b>'+esc(key)+'</b><ul>'+es.map(e=>'<li class="'+(e.v?"now":"old")+'"><span>'+esc(e.text)+
      '</span> <small>'+esc(when(e))+(e.v?"":", superseded")+', rel '+esc(Number(e.r).toFixed(2))+'</small></li>').join("")+
      '</ul></li>';}).join("")||"<li>no facts</li>";}
window.knowledgeGraph={nodes:N,edges:E,history:HI,select:i=>showFacts(i),labels:()=>placed.slice()};  // console and tests
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
