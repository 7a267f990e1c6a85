import { localZoneName, offsetLabel, setTimeZoneChoice, useTimeZoneChoice } from './zone';

/** The header's switch between local time and UTC; the choice applies to every time shown. */
export function TimeZoneSwitch() {
  const zone = useTimeZoneChoice();
  const local = offsetLabel(new Date());
  return (
    <div className="zone-switch" role="group" aria-label="Times shown in" data-testid="zone-switch">
      <button
        type="button"
        aria-pressed={zone === 'local'}
        title={`Times in your browser's zone, ${localZoneName()} (${local} now)`}
        onClick={() => setTimeZoneChoice('local')}
      >
        Local
      </button>
      <button
        type="button"
        aria-pressed={zone === 'utc'}
        title="Times in UTC"
        onClick={() => setTimeZoneChoice('utc')}
      >
        UTC
      </button>
    </div>
  );
}
