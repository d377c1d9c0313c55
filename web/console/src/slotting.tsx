import { useState } from 'preact/hooks';
import { api, describe, type SlottingProposal } from './api';
import { plural } from './text';

/** Walking distances in the layout's unit: whole thousands grouped, one decimal at most (a small floor walks tens). */
const distance = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
/**
 * Below this many waves the saving is a small sample's: a few orders' products decide it, and the
 * next waves may walk quite differently. The proposal says so next to its figure.
 */
const FEW_WAVES = 20;

/**
 * Which products to move nearer the depot, judged by planning the period's orders into carts again
 * for the moves made and walking them. Nothing moves until the supervisor applies the proposal.
 */
export function SlottingAdvice() {
  const [proposal, setProposal] = useState<SlottingProposal | null>(null);
  const [working, setWorking] = useState<'proposing' | 'applying' | null>(null);
  const [error, setError] = useState<string | null>(null);

  /** Runs one request of the section; its answer replaces the proposal shown. */
  const run = async (kind: 'proposing' | 'applying', request: () => Promise<SlottingProposal>) => {
    setWorking(kind);
    setError(null);
    try {
      setProposal(await request());
    } catch (failure) {
      setError(describe(failure));
    } finally {
      setWorking(null);
    }
  };

  const propose = (event: Event) => {
    event.preventDefault();
    const maxMoves = String(new FormData(event.target as HTMLFormElement).get('maxMoves') ?? '').trim();
    setProposal(null);
    void run('proposing', () => api('POST', '/slotting/proposals', { body: maxMoves ? { maxMoves: Number(maxMoves) } : {} }));
  };
  const apply = (id: string) => void run('applying', () => api('POST', '/slotting/proposals/{id}/apply', { params: { id } }));

  return (
    <section class="panel wide slotting" aria-labelledby="slotting-heading">
      <h3 id="slotting-heading">Slotting advice</h3>
      <p>Moves the busiest products nearer the depot, judged by walking the orders of the last 30 days' completed waves again. Nothing moves until you apply them.</p>
      <form class="row slotting-form" onSubmit={propose}>
        <div class="stack">
          <label for="slotting-max-moves">Most moves</label>
          <input id="slotting-max-moves" name="maxMoves" type="number" min={1} max={100_000} step={1} placeholder="1000" />
        </div>
        <button type="submit" class="primary" disabled={working !== null}>
          Propose moves
        </button>
      </form>
      <div role="alert" class="message error">
        {error}
      </div>
      <div role="status" class="message info">
        {working === 'proposing' && <p>Replaying the period's orders…</p>}
        {working === 'applying' && <p>Moving the products…</p>}
        {!working && proposal?.applied && <AppliedSummary applied={proposal.applied} />}
      </div>
      {proposal && <Proposal proposal={proposal} working={working !== null} onApply={() => apply(proposal.id)} />}
    </section>
  );
}

function Proposal({ proposal, working, onApply }: { proposal: SlottingProposal; working: boolean; onApply(): void }) {
  if (proposal.moves.length === 0) return <p>No move would shorten the walking of the period's {plural(proposal.waves, 'wave')}.</p>;
  return (
    <>
      <p class="saving">
        Walking {distance.format(proposal.walkingBefore)} → {distance.format(proposal.walkingAfter)} (−{proposal.savingPercent.toFixed(1)}%) over{' '}
        {plural(proposal.waves, 'wave')}
      </p>
      {proposal.waves < FEW_WAVES && (
        <p class="uncertain">
          Made from only {plural(proposal.waves, 'wave')}: few waves make an uncertain figure, and the next waves may save more or less.
        </p>
      )}
      {proposal.basis && <p class="basis">{proposal.basis.summary}.</p>}
      <SavingByMoves proposal={proposal} />
      <h4 id="slotting-moves-heading">Proposed moves</h4>
      <table aria-labelledby="slotting-moves-heading">
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Picks</th>
          </tr>
        </thead>
        <tbody>
          {proposal.moves.map((move) => (
            <tr key={move.productExternalId}>
              <th scope="row">
                {move.name} ({move.sku})
              </th>
              <td>{move.from}</td>
              <td>{move.to}</td>
              <td>{move.picks}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!proposal.appliedAt && (
        <button type="button" class="primary" disabled={working} onClick={onApply}>
          Apply moves
        </button>
      )}
    </>
  );
}

/**
 * How the saving grows with the moves: the busiest products' moves only, then more, up to the
 * whole proposal. A supervisor who stops where the moves stop paying proposes again with that many.
 */
function SavingByMoves({ proposal }: { proposal: SlottingProposal }) {
  if (proposal.savingByMoves.length < 2) return null;
  return (
    <>
      <h4 id="slotting-curve-heading">Saving by moves</h4>
      <p id="slotting-curve-hint">The busiest products first. To stop earlier, propose again with that many as Most moves.</p>
      <table aria-labelledby="slotting-curve-heading" aria-describedby="slotting-curve-hint" class="curve">
        <thead>
          <tr>
            <th scope="col">Moves</th>
            <th scope="col">Walking</th>
            <th scope="col">Saving</th>
          </tr>
        </thead>
        <tbody>
          {proposal.savingByMoves.map((point) => (
            <tr key={point.moves}>
              <th scope="row">{point.moves}</th>
              <td>{distance.format(point.walking)}</td>
              <td>{point.savingPercent > 0 ? '−' : point.savingPercent < 0 ? '+' : ''}{Math.abs(point.savingPercent).toFixed(1)}%</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** What applying did: the products moved, and each move left out with its reason. */
function AppliedSummary({ applied }: { applied: NonNullable<SlottingProposal['applied']> }) {
  return (
    <>
      <p>
        Moved {plural(applied.moved, 'product')}
        {applied.skipped.length === 0 ? '.' : `; skipped ${applied.skipped.length}:`}
      </p>
      {applied.skipped.length > 0 && (
        <ul>
          {applied.skipped.map((skip) => (
            <li key={skip.productExternalId}>
              {skip.productExternalId}: {skip.reason}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
