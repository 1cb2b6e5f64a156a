import Link from 'next/link';
import type { ReactNode } from 'react';

/** A page's title, description and actions; `back` adds a link to the parent list above it. */
export function PageHeader({ title, description, actions, back }: { title: ReactNode; description?: ReactNode; actions?: ReactNode; back?: { href: string; label: string } }) {
  const header = (
    <div className="page-header page-header--actions">
      <div>
        <h1>{title}</h1>
        {description && <p className="muted">{description}</p>}
      </div>
      {actions && <div className="cluster">{actions}</div>}
    </div>
  );
  if (!back) return header;
  return (
    <div>
      <Link className="back-link" href={back.href}>
        ← {back.label}
      </Link>
      {header}
    </div>
  );
}
