import { LoadingState } from '@/components/loading-state';

export default function Loading() {
  return <LoadingState />;
}
