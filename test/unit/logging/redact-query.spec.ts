/** What the request log keeps of a URL: no tokens, no learners (LRS agents, learner ids, addresses). */
import { redactQuery } from '../../../src/platform/logging/logging.module';

describe('redactQuery', () => {
  it.each([
    ['/player/launch?token=abc.def', '/player/launch?token=[redacted]'],
    ['/lrs/APP/activities/state?activityId=http%3A%2F%2Fx%2Fa&stateId=s&agent=%7B%22mbox%22%3A%22mailto%3Aada%40example.org%22%7D', '/lrs/APP/activities/state?activityId=http%3A%2F%2Fx%2Fa&stateId=s&agent=[redacted]'],
    ['/api/v2/registrations?courseId=c1&learnerId=ada%40example.org&more=xyz', '/api/v2/registrations?courseId=c1&learnerId=[redacted]&more=[redacted]'],
    ['/api/v2/learner/ada@example.org/tags', '/api/v2/learner/[address]/tags'],
    ['/api/v2/learner/ada%40example.org/delete-information?userEmail=admin%40example.com', '/api/v2/learner/[address]/delete-information?userEmail=[redacted]'],
    ['/api/v2/courses/golf?includeRegistrationCount=true', '/api/v2/courses/golf?includeRegistrationCount=true'],
  ])('%s', (url, logged) => expect(redactQuery(url)).toBe(logged));
});
