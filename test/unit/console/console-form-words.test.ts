import { inPageWords, inputOfField } from '../../../lib/console/form-words';

describe("the form's errors in the page's words", () => {
  it.each([
    ['give at least one --peer <cluster>[:weight] to take the traffic (example: --peer greetings-lva1:2)', 'give at least one “Peers” (cluster[:weight]) to take the traffic (example: greetings-lva1:2)'],
    ['give either --for <duration> or --until <time>, not both', 'give either “For” (duration) or “Until” (time), not both'],
    ['say how long: --for <duration> (e.g. --for 2h) or --until <time> (e.g. --until 2026-11-30T18:00:00Z)', 'say how long: “For” (duration) (e.g. 2h) or “Until” (time) (e.g. 2026-11-30T18:00:00Z)'],
    ['--share "150" must be a whole percentage from 1 to 100 (example: --share 50)', '“Share %” "150" must be a whole percentage from 1 to 100 (example: 50)'],
    ['--ramp "x": "x" is not <pct>%[:<duration>] (example: --ramp 10%:5m,50%:10m,100%)', '“Ramp” "x": "x" is not <pct>%[:<duration>] (example: 10%:5m,50%:10m,100%)'],
  ])('says %s with the form\'s labels', (cli, page) => {
    // Act + Assess
    expect(inPageWords(cli)).toBe(page);
  });

  it('leaves flags the form has no field for as they are', () => {
    // Act + Assess
    expect(inPageWords('no queue to send to: set FAILOUT_QUEUE_URL or pass --queue-url <url>')).toBe('no queue to send to: set FAILOUT_QUEUE_URL or pass --queue-url <url>');
  });

  it.each([
    ['peers', 'f-peers'],
    ['stopAlarms', 'f-alarms'],
    ['for', 'f-for'],
    ['until', 'f-until'],
    ['share', 'f-share'],
  ])('marks the input of field %s', (field, input) => {
    // Act + Assess
    expect(inputOfField(field)).toBe(input);
  });

  it('marks nothing for a field the form does not have, or none', () => {
    // Act + Assess
    expect(inputOfField('targets')).toBeUndefined();
    expect(inputOfField(undefined)).toBeUndefined();
    expect(inputOfField('__proto__')).toBeUndefined();
  });
});
