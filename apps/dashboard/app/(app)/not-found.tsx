import Link from 'next/link';
import { EmptyState } from '@/components/empty-state';

export default function NotFound() {
  return (
    <div className="card">
      <EmptyState title="Not found" action={<Link href="/">Back to the overview</Link>}>
        It may have been deleted, or the link is wrong.
      </EmptyState>
    </div>
  );
}
