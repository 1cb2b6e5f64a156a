import type { Me } from '@tollgate/contracts';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { NavLink } from './nav-link';
import { SignOutButton } from './sign-out-button';

/** Sections of the dashboard. */
const NAV: { href: string; label: string }[] = [
  { href: '/', label: 'Overview' },
  { href: '/keys', label: 'Keys' },
  { href: '/plans', label: 'Plans' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/audit', label: 'Audit log' },
];

/** The signed-in frame: header with navigation and the current user, then the page. */
export function AppShell({ me, children }: { me: Me; children: ReactNode }) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header__inner">
          <Link href="/" className="brand">
            Tollgate
          </Link>
          <nav className="nav" aria-label="Main">
            {NAV.map((item) => (
              <NavLink key={item.href} href={item.href}>
                {item.label}
              </NavLink>
            ))}
          </nav>
          <div className="user-menu">
            <span className="user-menu__email">{me.email ?? (me.kind === 'root_key' ? 'Root key' : me.id)}</span>
            <span className="badge" title={me.role === 'viewer' ? 'Read-only access' : undefined}>
              {me.role === 'viewer' ? 'viewer · read-only' : me.role}
            </span>
            <SignOutButton />
          </div>
        </div>
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
