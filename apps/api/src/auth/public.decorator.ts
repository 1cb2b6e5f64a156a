import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'tollgate:public';

/** Marks a route or controller as reachable without an admin credential. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
