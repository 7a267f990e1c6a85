import type { SpecificErrorCode } from './error-registry.js';
import type { ErrorCode, ValidationError } from './errors.js';

/** Body of every error answer (the shape of Conductor's `ErrorResponse`, plus `errorCode`). */
export interface ErrorBody {
  status: number;
  /** The error's class (`ERROR_CODES`), which decides the status; what clients branch on broadly. */
  code: ErrorCode;
  /** The specific error (`ERROR_REGISTRY`), stable, for clients that tell one refusal from another. */
  errorCode: SpecificErrorCode;
  message: string;
  retryable: boolean;
  validationErrors?: ValidationError[];
}
