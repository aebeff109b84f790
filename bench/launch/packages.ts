import { ZipFile } from 'yazl';

/**
 * The SCO page of the launch benchmark: it finds the SCORM 2004 API the standard way (parents, then opener), calls
 * Initialize, then at once sets a status and commits, and says when each call returned, on the top page's clock
 * (performance.timeOrigin + now(): milliseconds since the epoch, the clock the benchmark reads too) through the
 * console, which the benchmark listens to.
 */
const SCO_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>bench SCO</title></head><body><p id="state">loading</p><script>
function findApi(w){for(var i=0;w&&i<10;i++){if(w.API_1484_11)return w.API_1484_11;if(w.parent===w)break;w=w.parent;}return null;}
var api=findApi(window)||(window.opener&&findApi(window.opener));
var clock=function(){return top.performance.timeOrigin+top.performance.now();};
api.Initialize('');
console.log('lcds-bench initialize '+clock());
api.SetValue('cmi.location','page-1');
api.SetValue('cmi.completion_status','incomplete');
api.Commit('');
console.log('lcds-bench commit-called '+clock());
document.getElementById('state').textContent='running';
</script></body></html>`;

async function zip(files: Record<string, string>): Promise<Buffer> {
  const z = new ZipFile();
  for (const [name, content] of Object.entries(files)) z.addBuffer(Buffer.from(content), name);
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const HEAD = `<?xml version="1.0"?><manifest identifier="bench-launch" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss" xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3">
<metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>`;

/** A single-SCO SCORM 2004 4th edition course. */
export function singleScoPackage(): Promise<Buffer> {
  const manifest = `${HEAD}<organizations default="org"><organization identifier="org"><title>Launch benchmark, one SCO</title>
<item identifier="sco-1" identifierref="res"><title>The lesson</title></item></organization></organizations>
<resources><resource identifier="res" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources></manifest>`;
  return zip({ 'imsmanifest.xml': manifest, 'sco.html': SCO_HTML });
}

/**
 * A sequenced SCORM 2004 4th edition course of `modules` × `scosPerModule` SCOs under clusters (flow and choice at
 * every level, a precondition and a rollup rule per module, objectives with shared global maps): 55 activities with
 * the defaults (5 × 10 SCOs, 5 clusters, the root).
 */
export function sequencedPackage(modules = 5, scosPerModule = 10): Promise<Buffer> {
  const items: string[] = [];
  for (let m = 1; m <= modules; m++) {
    const scos: string[] = [];
    for (let s = 1; s <= scosPerModule; s++) {
      const id = `m${m}-s${s}`;
      scos.push(`<item identifier="${id}" identifierref="res"><title>Module ${m}, lesson ${s}</title>
<imsss:sequencing><imsss:objectives><imsss:primaryObjective objectiveID="${id}-obj" satisfiedByMeasure="false"><imsss:mapInfo targetObjectiveID="g-${id}" readSatisfiedStatus="true" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives></imsss:sequencing></item>`);
    }
    const pre =
      m > 1
        ? `<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="attemptLimitExceeded"/></imsss:ruleConditions><imsss:ruleAction action="disabled"/></imsss:preConditionRule></imsss:sequencingRules>`
        : '';
    items.push(`<item identifier="module-${m}"><title>Module ${m}</title>${scos.join('')}
<imsss:sequencing><imsss:controlMode choice="true" flow="true"/>${pre}<imsss:rollupRules><imsss:rollupRule childActivitySet="all"><imsss:rollupConditions><imsss:rollupCondition condition="completed"/></imsss:rollupConditions><imsss:rollupAction action="completed"/></imsss:rollupRule></imsss:rollupRules></imsss:sequencing></item>`);
  }
  const manifest = `${HEAD}<organizations default="org"><organization identifier="org" adlseq:objectivesGlobalToSystem="false"><title>Launch benchmark, sequenced</title>
${items.join('\n')}<imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing></organization></organizations>
<resources><resource identifier="res" type="webcontent" adlcp:scormType="sco" href="sco.html"><file href="sco.html"/></resource></resources></manifest>`;
  return zip({ 'imsmanifest.xml': manifest, 'sco.html': SCO_HTML });
}
