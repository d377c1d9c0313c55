import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, describe, type HeatMap, type InsightCharts } from './api';
import { layoutSummary, PlanDrawing, ROUTE_COLOURS } from './floor-plan';

type Bucket = InsightCharts['bucket'];
type Point = InsightCharts['points'][number];

const DAY_MS = 24 * 60 * 60_000;
const CHART_HEIGHT = 220;
/** Heat from few picks to many: light to dark, each step told apart from the unpicked grey. */
const HEAT = ['#fde68a', '#f59e0b', '#dc2626', '#7f1d1d'];
const UNPICKED = '#e5e7eb';

/** A day as a date input holds it (YYYY-MM-DD), in UTC like the service's buckets. */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const shown = (value: number | null) => (value === null ? '–' : String(value));

interface Choice {
  first: string;
  last: string;
  bucket: Bucket;
}

/** The last 7 days, today included, one point a day. */
function lastWeek(): Choice {
  const today = Date.parse(dayOf(Date.now()));
  return { first: dayOf(today - 6 * DAY_MS), last: dayOf(today), bucket: 'day' };
}

/** The service's period for the chosen days: from the first day's start to the end of the last. */
const periodOf = ({ first, last }: Choice) => ({ from: new Date(Date.parse(first)).toISOString(), to: new Date(Date.parse(last) + DAY_MS).toISOString() });

/** Where the walking goes and who picks how fast, over a chosen period (supervisors). */
export default function Insight() {
  const [choice, setChoice] = useState<Choice>(lastWeek);
  const [heatMap, setHeatMap] = useState<HeatMap | null>(null);
  const [charts, setCharts] = useState<InsightCharts | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    const period = periodOf(choice);
    setError(null);
    Promise.all([api('GET', '/insight/heat-map', { query: period }), api('GET', '/insight/charts', { query: { ...period, bucket: choice.bucket } })]).then(
      ([nextHeatMap, nextCharts]) => {
        if (!current) return;
        setHeatMap(nextHeatMap);
        setCharts(nextCharts);
      },
      (failure: unknown) => current && setError(describe(failure)),
    );
    return () => {
      current = false;
    };
  }, [choice]);

  return (
    <div class="insight">
      <h2>Insight</h2>
      <PeriodChooser choice={choice} onChoose={setChoice} />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!heatMap || !charts ? (
        !error && <p role="status">Loading…</p>
      ) : (
        <>
          <HeatMapPanel heatMap={heatMap} />
          <ChartPanels charts={charts} />
        </>
      )}
    </div>
  );
}

function PeriodChooser({ choice, onChoose }: { choice: Choice; onChoose: (choice: Choice) => void }) {
  return (
    <form
      class="period row"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        onChoose({ first: String(form.get('first')), last: String(form.get('last')), bucket: form.get('bucket') === 'hour' ? 'hour' : 'day' });
      }}
    >
      <label>
        First day <input type="date" name="first" required defaultValue={choice.first} />
      </label>
      <label>
        Last day <input type="date" name="last" required defaultValue={choice.last} />
      </label>
      <label>
        One point per{' '}
        <select name="bucket" defaultValue={choice.bucket}>
          <option value="day">day (up to 92 days)</option>
          <option value="hour">hour (up to 7 days)</option>
        </select>
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

/** The heat step of a location's picks: 0 for none, else 1..HEAT.length by its share of the busiest. */
const heatStep = (picks: number, busiest: number) => (picks === 0 ? 0 : Math.max(1, Math.ceil((picks / busiest) * HEAT.length)));

function HeatMapPanel({ heatMap }: { heatMap: HeatMap }) {
  const { layout, locations, unplaced } = heatMap;
  const busiest = Math.max(0, ...locations.map((location) => location.picks));
  const picked = locations.filter((location) => location.picks > 0);
  const byCode = new Map(locations.map((location) => [location.code, location]));
  const fill = (code: string) => {
    const step = heatStep(byCode.get(code)?.picks ?? 0, busiest);
    return step === 0 ? UNPICKED : HEAT[step - 1]!;
  };
  const total = locations.reduce((sum, location) => sum + location.picks, 0) + unplaced.picks;
  const summary = `${plural(total, 'pick')} in the period at ${plural(picked.length, 'location')}${unplaced.picks > 0 ? `, ${plural(unplaced.picks, 'pick')} without a placed location` : ''}.`;
  return (
    <section class="panel wide" aria-labelledby="heat-heading">
      <h3 id="heat-heading">Picks per location</h3>
      {!layout ? (
        <p>No layout stored yet: the warehouse API's PUT /layout describes the floor.</p>
      ) : (
        <figure class="floor-plan">
          <PlanDrawing
            layout={layout}
            locations={locations}
            idPrefix="heat"
            title="Heat map of picks per location"
            description={`${layoutSummary(layout)}. ${summary} The counts are listed in the table below the plan.`}
            markFill={fill}
            markTitle={(code) => `${code}: ${plural(byCode.get(code)?.picks ?? 0, 'pick')}`}
          />
          <figcaption>
            <p>{summary}</p>
            <ul class="legend" aria-label="Legend">
              <li>
                <span class="swatch" aria-hidden="true" style={{ background: UNPICKED }} />
                no picks
              </li>
              {HEAT.map((colour, index) => {
                const range = legendRange(index, busiest);
                return (
                  range && (
                    <li key={colour}>
                      <span class="swatch" aria-hidden="true" style={{ background: colour }} />
                      {range}
                    </li>
                  )
                );
              })}
            </ul>
          </figcaption>
        </figure>
      )}
      <div class="table-scroll" role="region" aria-label="Picks per location as a table" tabIndex={0}>
        <table>
          <caption>Locations picked from, busiest first{locations.length > picked.length ? `; ${plural(locations.length - picked.length, 'other placed location')} had no picks` : ''}</caption>
          <thead>
            <tr>
              <th scope="col">Location</th>
              <th scope="col">Aisle</th>
              <th scope="col">Position</th>
              <th scope="col">Picks</th>
              <th scope="col">Units</th>
            </tr>
          </thead>
          <tbody>
            {picked.map((location) => (
              <tr key={location.code}>
                <th scope="row">{location.code}</th>
                <td>{location.aisle}</td>
                <td>{location.position}</td>
                <td>{location.picks}</td>
                <td>{location.units}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The picks a heat step stands for, as the legend says it; null for a step no count falls in (few picks, or none). */
function legendRange(index: number, busiest: number): string | null {
  const low = Math.floor((busiest * index) / HEAT.length) + 1;
  const high = Math.floor((busiest * (index + 1)) / HEAT.length);
  if (high < low) return null;
  return low === high ? plural(low, 'pick') : `${low}–${high} picks`;
}

interface Series {
  label: string;
  values: (number | null)[];
}

/** The points with their index, the newest first: the rows a table shows without scrolling are the recent ones. */
const newestFirst = (points: Point[]) => points.map((point, index) => ({ point, index })).reverse();

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const DAY_OF_YEAR = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/**
 * A bucket's start as the tables and legends say it, in UTC like the buckets: "24 Nov", "24 Nov
 * 09:00"; with the year ("24 Nov 2026") when the period spans two years (the caption names it
 * otherwise). Short, so that a table's every column fits a handheld.
 */
function bucketLabel(start: string, bucket: Bucket, withYear: boolean): string {
  const day = (withYear ? DAY_OF_YEAR : DAY).format(new Date(start));
  return bucket === 'day' ? day : `${day} ${start.slice(11, 16)}`;
}

/** The years the points fall in. */
const yearsOf = (points: Point[]) => [...new Set(points.map((point) => point.start.slice(0, 4)))];

function ChartPanels({ charts }: { charts: InsightCharts }) {
  const { points, bucket, shortReasons, pickers } = charts;
  const per = bucket === 'day' ? 'per day' : 'per hour';
  const series = (label: string, value: (point: Point) => number | null): Series => ({ label, values: points.map(value) });
  return (
    <div class="panels charts">
      <Chart
        id="orders"
        title={`Orders ${per}`}
        bucket={bucket}
        points={points}
        series={[
          series('Received', (point) => point.received),
          series('Picked', (point) => point.picked),
          series('Packed', (point) => point.packed),
          series('Dispatched', (point) => point.dispatched),
        ]}
      />
      <Chart
        id="rate"
        title="Picking rate per picker-hour"
        bucket={bucket}
        points={points}
        series={[
          series('Lines per picker-hour', (point) => point.linesPerPickerHour),
          series('Units per picker-hour', (point) => point.unitsPerPickerHour),
          series('Picker-hours', (point) => point.pickerHours),
        ]}
        drawn={2}
      />
      <Chart
        id="walk"
        title="Walking per order: the planned route against S-shape"
        bucket={bucket}
        points={points}
        series={[
          series('Planned route', (point) => point.walkPerOrder),
          series('S-shape', (point) => point.sShapeWalkPerOrder),
          series('Waves completed', (point) => point.wavesCompleted),
        ]}
        drawn={2}
      />
      <Chart
        id="shorts"
        title={`Short picks by reason ${per}`}
        bucket={bucket}
        points={points}
        series={shortReasons.map((reason) => series(reason, (point) => point.shortPicks[reason] ?? 0))}
        empty="No short picks in the period."
      />
      <section class="panel span-2" aria-labelledby="pickers-heading">
        <h3 id="pickers-heading">Pickers</h3>
        {pickers.length === 0 ? (
          <p>Nobody picked a wave assigned to them in the period.</p>
        ) : (
          <div class="table-scroll" role="region" aria-label="Pickers as a table" tabIndex={0}>
            <table>
              <caption>Fastest first; a picker-hour is a clock hour in which the picker recorded a pick</caption>
              <thead>
                <tr>
                  <th scope="col">Picker</th>
                  <th scope="col">Lines</th>
                  <th scope="col">Units</th>
                  <th scope="col">Picker-hours</th>
                  <th scope="col">Lines per picker-hour</th>
                </tr>
              </thead>
              <tbody>
                {pickers.map((picker) => (
                  <tr key={picker.id}>
                    <th scope="row">{picker.name}</th>
                    <td>{picker.linesPicked}</td>
                    <td>{picker.unitsPicked}</td>
                    <td>{picker.pickerHours}</td>
                    <td>{shown(picker.linesPerPickerHour)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

/** The latest point with a value in any of the series (the last point when none has one); null without points. */
function latestIndex(series: Series[], length: number): number | null {
  for (let index = length - 1; index >= 0; index--) if (series.some((line) => line.values[index] != null)) return index;
  return length > 0 ? length - 1 : null;
}

/**
 * One chart: the first `drawn` series drawn by uPlot (hidden from screen readers), and every
 * series in a table below it, newest first, which is the chart's text alternative.
 */
function Chart({ id, title, bucket, points, series, drawn = series.length, empty }: { id: string; title: string; bucket: Bucket; points: Point[]; series: Series[]; drawn?: number; empty?: string }) {
  const holder = useRef<HTMLDivElement>(null);
  const lines = series.slice(0, drawn);
  const years = yearsOf(points);
  const withYear = years.length > 1;

  useEffect(() => {
    const element = holder.current;
    if (!element || lines.length === 0) return;
    const xs = points.map((point) => Date.parse(point.start) / 1000);
    // Without a pointer over the chart (a handheld has none), its legend reads the latest values.
    const latest = latestIndex(lines, points.length);
    const showLatest = (plot: uPlot) => {
      if (plot.cursor.idx == null && latest !== null) plot.setLegend({ idx: latest }, false);
    };
    const plot = new uPlot(
      {
        width: element.clientWidth,
        height: CHART_HEIGHT,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        series: [
          { label: bucket === 'day' ? 'Day' : 'Hour', value: (_, seconds) => (seconds == null ? '' : bucketLabel(new Date(seconds * 1000).toISOString(), bucket, withYear)) },
          // A value as the tables write it: "–" for none (uPlot's own is "--").
          ...lines.map((line, index) => ({ label: line.label, stroke: ROUTE_COLOURS[index % ROUTE_COLOURS.length], width: 2, points: { show: true }, value: (_: uPlot, value: number | null) => shown(value) })),
        ],
        hooks: { setCursor: [showLatest] },
      },
      [xs, ...lines.map((line) => line.values)],
      element,
    );
    showLatest(plot);
    // The chart follows its panel's width: a phone held upright, a desk screen.
    const observer = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: CHART_HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [points]);

  return (
    <section class="panel span-2" aria-labelledby={`${id}-heading`}>
      <figure class="chart" aria-labelledby={`${id}-heading`}>
        <h3 id={`${id}-heading`}>{title}</h3>
        {series.length === 0 ? <p>{empty}</p> : <div ref={holder} class="chart-canvas" aria-hidden="true" />}
        {series.length > 0 && (
          <figcaption>
            <div class="table-scroll" role="region" aria-label={`${title} as a table`} tabIndex={0}>
              <table>
                <caption>
                  {title}, the numbers, newest first ({bucket === 'day' ? 'days' : 'hours'} in UTC{withYear ? '' : `, ${years[0] ?? ''}`})
                </caption>
                <thead>
                  <tr>
                    <th scope="col">{bucket === 'day' ? 'Day' : 'Hour'}</th>
                    {series.map((line) => (
                      <th key={line.label} scope="col">
                        {line.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {newestFirst(points).map(({ point, index }) => (
                    <tr key={point.start}>
                      <th scope="row">{bucketLabel(point.start, bucket, withYear)}</th>
                      {series.map((line) => (
                        <td key={line.label}>{shown(line.values[index] ?? null)}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </figcaption>
        )}
      </figure>
    </section>
  );
}
