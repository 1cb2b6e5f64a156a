import type { ReactNode } from 'react';
import { AppShell } from '@/components/app-shell';
import { requireUser } from '@/lib/current-user';

/** Every signed-in page: the session is checked here once, then the shell wraps the page. */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const me = await requireUser();
  return <AppShell me={me}>{children}</AppShell>;
}
