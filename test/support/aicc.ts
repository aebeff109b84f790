import { zipOf } from './player';

/** A one-AU AICC package (.crs/.au/.des/.cst) whose AU page is `page`. */
export async function aiccPackage(page: string, au: { masteryScore?: string; coreVendor?: string } = {}): Promise<Buffer> {
  return zipOf({
    'course.crs': '[Course]\r\nCourse_ID=gen-aicc\r\nCourse_Title=Generated AICC\r\nCourse_System=HTML\r\nLevel=1\r\nTotal_AUs=1\r\nTotal_Blocks=0\r\nVersion=4.0\r\n',
    'course.au': `"System_ID","Type","Command_Line","File_Name","Max_Score","Mastery_Score","Max_Time_Allowed","Time_Limit_Action","System_Vendor","Core_Vendor","Web_Launch","AU_Password"\r\n"A1","lesson","","au/index.html","100","${au.masteryScore ?? ''}","00:30:00","C,N","","${au.coreVendor ?? ''}","",""\r\n`,
    'course.des': '"System_ID","Developer_ID","Title","Description"\r\n"A1","D1","The AU","Generated AU"\r\n',
    'course.cst': '"Block","Member"\r\n"ROOT","A1"\r\n',
    'au/index.html': page,
  });
}

/** The AICC_SID and AICC_URL of the AU in a player page's HTML (its config's contentUrl). */
export function aiccLaunchOf(html: string): { sid: string; url: string; contentUrl: string } {
  const config = JSON.parse(/<script id="lcds-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]) as { contentUrl: string };
  const q = new URL(config.contentUrl, 'http://x/').searchParams;
  return { sid: q.get('AICC_SID')!, url: q.get('AICC_URL')!, contentUrl: config.contentUrl };
}

/** One HACP request as an AU form-posts it; the answer's fields (error, error_text, aicc_data). */
export async function hacp(url: string, command: string, sessionId: string, aiccData = ''): Promise<{ error: string; errorText: string; data: string; raw: string; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ command, version: '4.0', session_id: sessionId, aicc_data: aiccData }).toString() });
  const raw = await res.text();
  const error = /^error=(\d+)\r$/m.exec(raw)?.[1] ?? '';
  const errorText = /^error_text=(.*)\r$/m.exec(raw)?.[1] ?? '';
  const at = raw.indexOf('aicc_data=');
  return { error, errorText, data: at >= 0 ? raw.slice(at + 'aicc_data='.length) : '', raw, headers: res.headers };
}
