import { newId } from '@mp/kit';

export const newRequestId = () => newId('request');
