// Failures the agent reports the way IPA serializes its RESTError: Ironic reads `details` (or
// `message`) into last_error, and checks `type` for "TypeError", so command_error is always this
// object, never a bare string.
export interface AgentErrorBody {
  readonly type: string;
  readonly code: number;
  readonly message: string;
  readonly details: string;
}

export class AgentError extends Error {
  constructor(readonly type: string, readonly code: number, readonly summary: string, readonly details: string, options?: ErrorOptions) {
    super(`${summary}: ${details}`, options);
    this.name = 'AgentError';
  }

  body(): AgentErrorBody {
    return { type: this.type, code: this.code, message: this.summary, details: this.details };
  }
}

export const checksumMismatch = (imageId: string, url: string, expected: string, actual: string): AgentError =>
  new AgentError('ImageChecksumError', 500, 'Error verifying image checksum',
    `Image failed to verify against checksum. location: ${url}; image ID: ${imageId}; image checksum: ${expected}; verification checksum: ${actual}`);

/** `image`: the image id, or the URL of a checksums file that could not be had (as IPA names them). */
export const downloadFailed = (image: string, why: string): AgentError =>
  new AgentError('ImageDownloadError', 500, 'Error downloading image', `Download of image ${image} failed: ${why}`);

export const commandFailed = (details: string, options?: ErrorOptions): AgentError =>
  new AgentError('CommandExecutionError', 500, 'Command execution failed', details, options);

export const invalidCommand = (details: string): AgentError =>
  new AgentError('InvalidCommandError', 400, 'Invalid command', details);

export const invalidParams = (details: string): AgentError =>
  new AgentError('InvalidCommandParamsError', 400, 'Invalid command parameters', details);

export const notFound = (details: string): AgentError =>
  new AgentError('RequestedObjectNotFoundError', 404, 'Not found', details);

export const agentBusy = (running: string): AgentError =>
  new AgentError('AgentIsBusy', 409, 'Agent is busy', `executing command ${running}`);

/** Any thrown value as the serialized error a command result carries. */
export function errorBody(err: unknown): AgentErrorBody {
  if (err instanceof AgentError) return err.body();
  const text = err instanceof Error ? err.message : String(err);
  return commandFailed(text).body();
}
