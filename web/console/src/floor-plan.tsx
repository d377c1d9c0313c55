import { aisleX, backY, middleCrossAisleYs, positionY, type CrossAisle, type Layout } from '../../../src/floor/plan/layout';
import type { ComponentChildren } from 'preact';
import type { Floor } from './api';
import { waveLabel } from './text';

/** Wave route colours: distinct from each other and at least 3:1 against the white plan. */
export const ROUTE_COLOURS = ['#0b62d6', '#c2410c', '#047857', '#7c3aed', '#b91c1c', '#0e7490'];

/** Around the aisles, in the layout's smaller spacing: room for the labels right of the last aisle and the aisle numbers below. */
const MARGIN = 3;
/** A location label's type size, in the layout's smaller spacing; an aisle number's. */
const LABEL_SIZE = 0.5;
const AISLE_NUMBER_SIZE = 0.9;
/**
 * The smallest a location label is drawn, in CSS pixels: a plan too large to fit its box at this
 * size is drawn larger than the box, which scrolls, rather than shrunk into specks on a phone.
 */
const MIN_LABEL_PX = 12;

/** Where the plan draws a layout point: the front cross aisle at the bottom, as one stands at the depot. */
function frame(layout: Layout) {
  const width = aisleX(layout, layout.aisles);
  const back = backY(layout);
  const pad = Math.min(layout.aisleSpacing, layout.positionSpacing) * MARGIN;
  return {
    width,
    back,
    pad,
    /** The drawing's size in the layout's unit, margins included. */
    outer: { width: width + 2 * pad, height: back + 2 * pad },
    viewBox: `${-pad} ${-pad} ${width + 2 * pad} ${back + 2 * pad}`,
    x: (aisle: number) => aisleX(layout, aisle),
    y: (layoutY: number) => back - layoutY,
  };
}

/** A middle cross aisle as the plan names it. */
const crossAisleLabel = ({ afterPosition, width }: CrossAisle) => `Cross aisle after position ${afterPosition}, ${width} wide`;

type Frame = ReturnType<typeof frame>;
/** A layout as the service answers it: its middle cross aisles listed, [] when none. */
type StoredLayout = NonNullable<Floor['layout']>;
type PlacedLocation = { code: string; aisle: number; position: number };

/**
 * The layout drawn as a plan: aisles, the front, back and middle cross aisles, the depot and each
 * placed location; `markFill` colours a location's mark (a heat map), `overlay` draws on top (routes).
 */
export function PlanDrawing({
  layout,
  locations,
  idPrefix,
  title,
  description,
  markFill,
  markTitle,
  overlay,
}: {
  layout: StoredLayout;
  locations: PlacedLocation[];
  /** Keeps the drawing's title and description ids apart from another plan's on the page. */
  idPrefix: string;
  title: string;
  description: string;
  markFill?: (code: string) => string;
  markTitle?: (code: string) => string;
  overlay?: (f: Frame, unit: number) => ComponentChildren;
}) {
  const f = frame(layout);
  const unit = Math.min(layout.aisleSpacing, layout.positionSpacing);
  const aisleNumbers = Array.from({ length: layout.aisles }, (_, i) => i + 1);
  // Front to back, as the service answers them and as middleCrossAisleYs lists their centre lines.
  const crossAisles = layout.crossAisles;
  const crossAisleYs = middleCrossAisleYs(layout);
  // Never drawn at fewer pixels per unit than a readable label needs.
  const scale = MIN_LABEL_PX / (unit * LABEL_SIZE);
  const smallest = { minWidth: `${Math.ceil(f.outer.width * scale)}px`, minHeight: `${Math.ceil(f.outer.height * scale)}px` };
  return (
    // Focusable, so that a keyboard can scroll a plan wider than the screen.
    <div class="plan-scroll" role="region" aria-label={title} tabIndex={0}>
      <svg viewBox={f.viewBox} role="img" aria-labelledby={`${idPrefix}-title ${idPrefix}-desc`} preserveAspectRatio="xMidYMid meet" style={smallest}>
        <title id={`${idPrefix}-title`}>{title}</title>
        <desc id={`${idPrefix}-desc`}>{description}</desc>
        <line x1={0} x2={f.width} y1={f.y(0)} y2={f.y(0)} class="cross-aisle" />
        <line x1={0} x2={f.width} y1={f.y(f.back)} y2={f.y(f.back)} class="cross-aisle" />
        {crossAisles.map((crossAisle, index) => {
          const y = f.y(crossAisleYs[index]!);
          return (
            <g key={crossAisle.afterPosition}>
              <title>{crossAisleLabel(crossAisle)}</title>
              <rect x={-unit} y={y - crossAisle.width / 2} width={f.width + 2 * unit} height={crossAisle.width} class="cross-aisle-band" />
              <line x1={0} x2={f.width} y1={y} y2={y} class="cross-aisle" />
            </g>
          );
        })}
        {aisleNumbers.map((aisle) => (
          <g key={aisle}>
            <line x1={f.x(aisle)} x2={f.x(aisle)} y1={f.y(0)} y2={f.y(f.back)} class="aisle" />
            <text x={f.x(aisle)} y={f.y(0) + unit * (0.8 + AISLE_NUMBER_SIZE)} text-anchor="middle" class="plan-label" font-size={unit * AISLE_NUMBER_SIZE}>
              {aisle}
            </text>
          </g>
        ))}
        {locations.map((location) => (
          <g key={location.code}>
            {markTitle && <title>{markTitle(location.code)}</title>}
            <rect
              x={f.x(location.aisle) - unit * 0.6}
              y={f.y(positionY(layout, location.position)) - unit * 0.3}
              width={unit * 1.2}
              height={unit * 0.6}
              class="location-mark"
              style={markFill ? { fill: markFill(location.code) } : undefined}
            />
            <text x={f.x(location.aisle) + unit * 0.8} y={f.y(positionY(layout, location.position))} dominant-baseline="middle" class="plan-label" font-size={unit * LABEL_SIZE}>
              {location.code}
            </text>
          </g>
        ))}
        <rect x={f.x(layout.depotAisle) - unit * 0.8} y={f.y(0) - unit * 0.8} width={unit * 1.6} height={unit * 1.6} class="depot">
          <title>Depot</title>
        </rect>
        {overlay?.(f, unit)}
      </svg>
    </div>
  );
}

/** The layout in words: aisles, positions, blocks and middle cross aisles. */
export function layoutSummary(layout: StoredLayout): string {
  const blocks = layout.crossAisles.length > 0 ? ` in ${layout.crossAisles.length + 1} blocks` : '';
  return `${layout.aisles} aisles of ${layout.positionsPerAisle} positions${blocks}`;
}

/**
 * The floor as a plan with every wave in progress as its walking route with its stops (filled
 * when done). The same content follows as text for anyone who cannot see the drawing.
 */
export function FloorPlan({ floor }: { floor: Floor }) {
  const { layout } = floor;
  if (!layout) return <p>No layout stored yet: the warehouse API's PUT /layout describes the floor.</p>;
  const summary =
    `${layoutSummary(layout)}, ${floor.locations.length} placed locations, ${floor.waves.length} ${floor.waves.length === 1 ? 'wave' : 'waves'} in progress.` +
    layout.crossAisles.map((crossAisle) => ` ${crossAisleLabel(crossAisle)}.`).join('');

  return (
    <figure class="floor-plan">
      <PlanDrawing
        layout={layout}
        locations={floor.locations}
        idPrefix="plan"
        title="Floor plan with the routes of the waves in progress"
        description={`${summary} The routes are listed as text below the plan.`}
        overlay={(f, unit) =>
          floor.waves.map((wave, index) => {
            const colour = ROUTE_COLOURS[index % ROUTE_COLOURS.length];
            return (
              <g key={wave.id}>
                <polyline
                  points={wave.path.map((point) => `${point.x},${f.y(point.y)}`).join(' ')}
                  fill="none"
                  stroke={colour}
                  stroke-width={unit * 0.25}
                  stroke-linejoin="round"
                  stroke-opacity={0.85}
                />
                {wave.stops.map((stop) => (
                  <circle key={stop.seq} cx={stop.x} cy={f.y(stop.y)} r={unit * 0.45} stroke={colour} stroke-width={unit * 0.15} fill={stop.done ? colour : '#ffffff'}>
                    <title>{`${waveLabel(wave)}, stop ${stop.seq}: ${stop.locationCode}${stop.done ? ' (done)' : ''}`}</title>
                  </circle>
                ))}
              </g>
            );
          })
        }
      />
      <figcaption>
        <p>{summary}</p>
        {floor.waves.length > 0 && (
          <ul class="routes">
            {floor.waves.map((wave, index) => (
              <li key={wave.id}>
                <span class="swatch" aria-hidden="true" style={{ background: ROUTE_COLOURS[index % ROUTE_COLOURS.length] }} />
                {waveLabel(wave)}, {wave.policy}, {Math.round(wave.distance * 10) / 10} long: depot →{' '}
                {wave.stops.map((stop) => `${stop.locationCode}${stop.done ? ' (done)' : ''}`).join(' → ')} → depot
              </li>
            ))}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
