import Link from 'next/link';

/** "Previous" / "Next" for cursor-paged lists; the hrefs are built by the page. */
export function CursorPager({ previousHref, nextHref, summary }: { previousHref?: string; nextHref?: string; summary?: string }) {
  if (!previousHref && !nextHref && !summary) return null;
  return (
    <nav className="pager" aria-label="Pagination">
      {previousHref ? (
        <Link className="button button--secondary button--small" href={previousHref} rel="prev">
          ← Previous
        </Link>
      ) : (
        <span />
      )}
      {summary && <span className="muted">{summary}</span>}
      {nextHref ? (
        <Link className="button button--secondary button--small" href={nextHref} rel="next">
          Next →
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}
