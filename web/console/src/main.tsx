import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, describe, whenUnauthorized, type Me, type Role } from './api';
import { Counting } from './count';
import { Packer } from './packer';
import { Picker } from './picker';
import { Print } from './print';
import { Replenish } from './replenish';
import { SignIn } from './signin';
import './styles.css';

/** The console's screens, each a client route under /console (the service answers index.html for them). */
const SCREENS = {
  pick: { title: 'Picking', roles: ['picker', 'supervisor'], inNav: true },
  replenish: { title: 'Replenish', roles: ['picker', 'supervisor'], inNav: true },
  count: { title: 'Count', roles: ['picker', 'supervisor'], inNav: true },
  pack: { title: 'Packing', roles: ['packer', 'supervisor'], inNav: true },
  supervisor: { title: 'Supervisor', roles: ['supervisor'], inNav: true },
  insight: { title: 'Insight', roles: ['supervisor'], inNav: true },
  /** A page to print (/console/print/wave/{id}, /console/print/slip/{ref}), opened from the others. */
  print: { title: 'Print', roles: ['packer', 'supervisor'], inNav: false },
} as const satisfies Record<string, { title: string; roles: Role[]; inNav: boolean }>;
type Screen = keyof typeof SCREENS;

const HOME: Record<Role, Screen> = { picker: 'pick', packer: 'pack', supervisor: 'supervisor' };

function screenOf(pathname: string): Screen | null {
  const name = pathname.replace(/^\/console\/?/, '').split('/')[0] ?? '';
  return name in SCREENS ? (name as Screen) : null;
}

/** Goes to the screen; `replace` leaves a path under it (a page to print) as it is. */
function go(screen: Screen, replace = false): void {
  const url = `/console/${screen}`;
  if (location.pathname === url || (replace && screenOf(location.pathname) === screen)) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** How long a tab waits for the console's lock before saying another tab has it (a reload's old page lets go within it). */
const OTHER_TAB_MS = 1_000;

/**
 * One console tab per device: two would each keep their own queue of picks and fight over the
 * scanner's keystrokes. A tab holds a Web Lock while it lives; another waits for it, says so, and
 * takes over once the first is closed.
 */
function useSoleTab(): boolean | undefined {
  const [sole, setSole] = useState<boolean | undefined>(navigator.locks ? undefined : true);
  useEffect(() => {
    if (!navigator.locks) return;
    const waiting = setTimeout(() => setSole((known) => known ?? false), OTHER_TAB_MS);
    void navigator.locks.request('pickport.console', () => {
      clearTimeout(waiting);
      setSole(true);
      return new Promise<void>(() => {}); // never settles: the lock is held until the tab closes
    });
  }, []);
  return sole;
}

/** The supervisor's screen (the plan, the tables) is loaded only when opened: the handheld never fetches it. */
const loadSupervisor = () => import('./supervisor').then((module) => module.default);
/** Insight (the heat map, the charts and their charting library) likewise. */
const loadInsight = () => import('./insight').then((module) => module.default);

function App() {
  const sole = useSoleTab();
  if (sole === undefined) return <p role="status">Loading…</p>;
  if (!sole) {
    return (
      <main class="sign-in">
        <h1>Pickport console</h1>
        <p role="alert">The console is already open in another tab on this device. Use that tab, or close it: this one then takes over.</p>
      </main>
    );
  }
  return <Console />;
}

function Console() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [ended, setEnded] = useState<string | null>(null);
  const [path, setPath] = useState(location.pathname);
  const [SupervisorScreen, setSupervisorScreen] = useState<ComponentType | null>(null);
  const [InsightScreen, setInsightScreen] = useState<ComponentType | null>(null);

  useEffect(() => {
    const moved = () => setPath(location.pathname);
    addEventListener('popstate', moved);
    whenUnauthorized(() => {
      setMe(null);
      setEnded('Your session has ended. Sign in again.');
    });
    api('GET', '/session').then(setMe, () => setMe(null));
    return () => removeEventListener('popstate', moved);
  }, []);

  const asked = screenOf(path);
  const screen = me ? (asked && (SCREENS[asked].roles as readonly Role[]).includes(me.user.role) ? asked : HOME[me.user.role]) : null;
  useEffect(() => {
    if (screen) go(screen, true);
    if (screen) document.title = `${SCREENS[screen].title} · Pickport console`;
    else document.title = 'Sign in · Pickport console';
    if (screen === 'supervisor' && !SupervisorScreen) void loadSupervisor().then((component) => setSupervisorScreen(() => component));
    if (screen === 'insight' && !InsightScreen) void loadInsight().then((component) => setInsightScreen(() => component));
  }, [screen]);

  if (me === undefined) return <p role="status">Loading…</p>;
  if (me === null || !screen) {
    return (
      <SignIn
        notice={ended}
        onSignedIn={(signedIn) => {
          setEnded(null);
          setMe(signedIn);
        }}
      />
    );
  }

  const signOut = async () => {
    try {
      await api('DELETE', '/session');
    } catch (error) {
      // Signed out either way on this device; the session ends on the service when it expires.
      console.warn(describe(error));
    }
    setMe(null);
  };

  const allowed = (Object.keys(SCREENS) as Screen[]).filter((name) => SCREENS[name].inNav && (SCREENS[name].roles as readonly Role[]).includes(me.user.role));
  return (
    <div class={`shell screen-${screen}`}>
      <header class="top">
        <p class="who">
          <span class="brand">Pickport</span> {me.user.name} · {me.warehouse.name}
        </p>
        {allowed.length > 1 && (
          <nav aria-label="Screens">
            {allowed.map((name) => (
              <a
                key={name}
                href={`/console/${name}`}
                aria-current={name === screen ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  go(name);
                }}
              >
                {SCREENS[name].title}
              </a>
            ))}
          </nav>
        )}
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <h1 class="visually-hidden">{SCREENS[screen].title}</h1>
        {screen === 'pick' && <Picker />}
        {screen === 'replenish' && <Replenish />}
        {screen === 'count' && <Counting />}
        {screen === 'pack' && <Packer />}
        {screen === 'supervisor' && (SupervisorScreen ? <SupervisorScreen /> : <p role="status">Loading…</p>)}
        {screen === 'insight' && (InsightScreen ? <InsightScreen /> : <p role="status">Loading…</p>)}
        {screen === 'print' && <Print pathname={path} />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
