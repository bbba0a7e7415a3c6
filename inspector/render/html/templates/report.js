(function(){
const PAGE=100;
const kernels=JSON.parse(document.getElementById('kernel-data').textContent);
const traces=JSON.parse(document.getElementById('trace-data').textContent);
const tbody=document.querySelector('#ktable tbody');
const search=document.getElementById('search'), only=document.getElementById('only-asserts');
let rows=kernels, page=0;
function esc(s){return String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));}
function filter(){
  const q=search.value.trim().toLowerCase();
  rows=kernels.filter(k=>(!only.checked||k[4].length)&&(!q||k[1].toLowerCase().includes(q)||
    k[5].some(x=>x.toLowerCase().includes(q))||k[6].some(x=>x.toLowerCase().includes(q))));
  page=0; draw();
  document.querySelectorAll('svg.chain .node').forEach(n=>n.classList.toggle('hit',!!q&&n.dataset.label.includes(q)));
}
function draw(){
  const pages=Math.max(1,Math.ceil(rows.length/PAGE)); page=Math.min(page,pages-1);
  const part=rows.slice(page*PAGE,(page+1)*PAGE);
  tbody.innerHTML=part.map(k=>'<tr><td>'+esc(k[0])+'</td><td>'+esc(k[1])+'</td><td>'+esc(k[2])+'</td><td>'+esc(k[3])+
    '</td><td>'+(k[4].length?k[4].map(a=>'<div class="asrt">line '+a[0]+': '+esc(a[1])+'</div>').join(''):'-')+
    '</td><td>'+esc(k[5].join(', '))+'</td><td>'+esc(k[6].join(', '))+'</td></tr>').join('');
  document.getElementById('kcount').textContent=rows.length+' of '+kernels.length+' kernels';
  document.getElementById('page').textContent='page '+(page+1)+' of '+pages;
  document.getElementById('prev').disabled=page==0; document.getElementById('next').disabled=page>=pages-1;
}
function code(src){
  if(!src) return '<p class="dim">no source for this node</p>';
  return '<div class="file">'+esc(src.what||src.file)+'</div><table class="code">'+src.lines.map(l=>
    '<tr class="'+(l[0]===src.mark?'mark':'')+'"><td class="ln">'+l[0]+'</td><td>'+esc(l[1])+'</td></tr>').join('')+'</table>';
}
function show(t,n){
  document.getElementById('panel-'+t).innerHTML='<div class="ptitle">'+esc(n.label)+'</div><div class="pdetail">'+
    esc(n.detail||'')+'</div>'+code(n.source);
}
function pick(g){
  const t=+g.dataset.trace;
  g.closest('svg').querySelectorAll('.node').forEach(x=>x.classList.remove('sel')); g.classList.add('sel');
  show(t,traces[t].nodes[+g.dataset.node]);
}
// Every code table of the page is drawn here, from the trace data: the panel (the assertion first), the
// kernel lines around the assert, the wrapper.cpp lines of the call sites.
traces.forEach((tr,t)=>{
  show(t,tr.nodes[0]);
  document.getElementById('snippet-'+t).innerHTML=code(tr.snippet);
  document.getElementById('calls-'+t).innerHTML=tr.calls.length?tr.calls.map(code).join(''):'<p class="dim">no launch found</p>';
});
document.querySelectorAll('svg.chain .node').forEach(g=>{
  g.addEventListener('click',()=>pick(g));
  g.addEventListener('keydown',e=>{if(e.key==='Enter'||e.key===' '){e.preventDefault();pick(g);}});
});
search.addEventListener('input',filter); only.addEventListener('change',filter);
document.getElementById('prev').onclick=()=>{page--;draw();};
document.getElementById('next').onclick=()=>{page++;draw();};
filter();
})();
