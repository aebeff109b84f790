/** The HACP protocol pieces: statuses, scores, times, aicc_data both ways, interaction and objective tables. */
import {
  getParamData,
  hacpResponse,
  interactionsToCmi,
  normalizeTimespan,
  objectivesToCmi,
  parseHacpTable,
  parseLessonStatus,
  parseScore,
  putParamToCmi,
  sessionIdOfAiccSid,
} from '../../../src/modules/player/aicc-hacp';

describe('HACP values', () => {
  it('reads lesson statuses in full, abbreviated and with the exit flag', () => {
    expect(parseLessonStatus('passed')).toEqual({ status: 'passed' });
    expect(parseLessonStatus('P')).toEqual({ status: 'passed' });
    expect(parseLessonStatus('i,s')).toEqual({ status: 'incomplete', exit: 'suspend' });
    expect(parseLessonStatus('incomplete, suspend')).toEqual({ status: 'incomplete', exit: 'suspend' });
    expect(parseLessonStatus('Completed, Logout')).toEqual({ status: 'completed', exit: 'logout' });
    expect(parseLessonStatus('f,t')).toEqual({ status: 'failed', exit: 'time-out' });
    expect(parseLessonStatus('b')).toEqual({ status: 'browsed' });
    expect(parseLessonStatus('not attempted')).toEqual({ status: 'not attempted' });
    expect(parseLessonStatus('N')).toEqual({ status: 'not attempted' });
    expect(parseLessonStatus('pending')).toBeNull();
    expect(parseLessonStatus('')).toBeNull();
  });

  it('reads scores and timespans', () => {
    expect(parseScore('85,100,0')).toEqual({ raw: '85', max: '100', min: '0' });
    expect(parseScore('85')).toEqual({ raw: '85' });
    expect(parseScore('')).toEqual({});
    expect(parseScore('eighty')).toBeNull();
    expect(normalizeTimespan('0:05:00')).toBe('00:05:00');
    expect(normalizeTimespan('0001:02:03.5')).toBe('0001:02:03.50');
    expect(normalizeTimespan('00:61:00')).toBeNull();
    expect(normalizeTimespan('5 minutes')).toBeNull();
  });

  it('recognises only well-formed session ids', () => {
    expect(sessionIdOfAiccSid('0123456789abcdef0123456789abcdef' + 'f'.repeat(32))).toBe('01234567-89ab-cdef-0123-456789abcdef');
    expect(sessionIdOfAiccSid('short')).toBeNull();
    expect(sessionIdOfAiccSid('g'.repeat(64))).toBeNull();
  });
});

describe('HACP aicc_data', () => {
  it('answers in the CRLF form an AU parses', () => {
    expect(hacpResponse(0)).toBe('error=0\r\nerror_text=Successful\r\n');
    expect(hacpResponse(3)).toBe('error=3\r\nerror_text=Invalid Session ID\r\n');
    const data = getParamData(
      { 'cmi.core.student_id': 'u1', 'cmi.core.student_name': 'Doe, Jo', 'cmi.core.entry': 'resume', 'cmi.core.lesson_status': 'incomplete', 'cmi.core.score.raw': '50', 'cmi.core.total_time': '0000:01:00', 'cmi.suspend_data': 'x=1' },
      { coreVendor: 'cfg=2', masteryScore: '80' },
    );
    expect(data.split('\r\n')).toEqual([
      '[Core]',
      'Student_ID=u1',
      'Student_Name=Doe, Jo',
      'Lesson_Location=',
      'Credit=credit',
      'Lesson_Status=incomplete, resume',
      'Score=50',
      'Time=0000:01:00',
      'Lesson_Mode=normal',
      '[Core_Lesson]',
      'x=1',
      '[Core_Vendor]',
      'cfg=2',
      '[Evaluation]',
      'Course_ID=',
      '[Student_Data]',
      'Mastery_Score=80',
      'Max_Time_Allowed=',
      'Time_Limit_Action=',
    ]);
  });

  it('turns PutParam into the SCORM 1.2 data model (sections and keys in any case)', () => {
    const put = putParamToCmi('[CORE]\r\nlesson_location=p2\r\nLESSON_STATUS=i,s\r\nScore=40,50,0\r\nTime=0:00:30\r\n[Core_Lesson]\r\nstate=a\r\n[Objectives_Status]\r\nJ_ID.1=o1\r\nJ_Status.1=P\r\nJ_Score.1=9\r\n');
    expect(put).toEqual({
      cmi: {
        'cmi.core.lesson_location': 'p2',
        'cmi.core.lesson_status': 'incomplete',
        'cmi.core.exit': 'suspend',
        'cmi.core.score.raw': '40',
        'cmi.core.score.max': '50',
        'cmi.core.score.min': '0',
        'cmi.core.session_time': '00:00:30',
        'cmi.suspend_data': 'state=a',
      },
      objectives: [{ j_id: 'o1', j_status: 'P', j_score: '9' }],
    });
    expect(putParamToCmi('[Core]\r\nLesson_Status=maybe\r\n')).toEqual({ problem: expect.stringMatching(/Lesson_Status "maybe"/) });
  });

  it('ignores an objective row number far past any AU\'s (no array of that length)', () => {
    const started = Date.now();
    const put = putParamToCmi('[Core]\r\nLesson_Status=I\r\n[Objectives_Status]\r\nJ_ID.1=o1\r\nJ_ID.99999999=far\r\n');
    expect(put).toMatchObject({ objectives: [{ j_id: 'o1' }] });
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('reads interaction tables (comma or tab) as a journal and keeps objective indexes by id', () => {
    const csv = parseHacpTable('"interaction_id","type_interaction","result","student_response"\r\n"q1","C","C","b"\r\n');
    const tab = parseHacpTable('interaction_id\ttype_interaction\tresult\r\nq2\tnumeric\tW\r\n');
    expect(interactionsToCmi([...csv, ...tab], 3)).toEqual({
      'cmi.interactions.3.id': 'q1',
      'cmi.interactions.3.type': 'choice',
      'cmi.interactions.3.result': 'correct',
      'cmi.interactions.3.student_response': 'b',
      'cmi.interactions.4.id': 'q2',
      'cmi.interactions.4.type': 'numeric',
      'cmi.interactions.4.result': 'wrong',
    });
    const current = { 'cmi.objectives.0.id': 'a', 'cmi.objectives.1.id': 'b' };
    expect(objectivesToCmi([{ j_id: 'b', j_status: 'f' }, { j_id: 'c', j_score: '7' }], current)).toEqual({
      'cmi.objectives.1.id': 'b',
      'cmi.objectives.1.status': 'failed',
      'cmi.objectives.2.id': 'c',
      'cmi.objectives.2.score.raw': '7',
    });
  });
});
