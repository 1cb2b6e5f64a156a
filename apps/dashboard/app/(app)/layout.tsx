import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { AppShell } from '@/components/app-shell';
import { ProblemAlert } from '@/components/problem-alert';
import { PATH_HEADER } from '@/lib/config';
import { currentSession } from '@/lib/current-user';
import { safeReturnPath } from '@/lib/navigation';
import type { ProblemInfo } from '@/lib/problem';
import { redirectToLogin } from '@/lib/server-api';

/**
 * Every signed-in page: the session is checked here once, then the shell wraps the page.
 * Signed out (401): to /login. The API down or failing: say so, and do not pretend the
 * user was signed out.
 */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  if (session.status === 'signed-out') return redirectToLogin();
  if (session.status === 'error') return <SessionUnavailable problem={session.problem} retryHref={safeReturnPath((await headers()).get(PATH_HEADER))} />;
  return <AppShell me={session.me}>{children}</AppShell>;
}

function SessionUnavailable({ problem, retryHref }: { problem: ProblemInfo; retryHref: string }) {
  const unreachable = problem.status === 0 || problem.status >= 500;
  const shown = problem.status === 0 ? { ...problem, detail: 'The dashboard could not connect to the Tollgate API. Check that it is running, then try again.' } : problem;
  return (
    <main className="auth-page">
      <div className="auth-card card stack" data-testid="session-unavailable">
        <ProblemAlert problem={shown} title={unreachable ? 'The Tollgate API is not reachable' : 'Your session could not be checked'} />
        <div className="cluster">
          <a className="button" href={retryHref}>
            Try again
          </a>
        </div>
      </div>
    </main>
  );
}
