import { MetalfleetError } from '../api/index.ts';

/**
 * A plugin refused: at load time (missing, wrong shape, wrong contract version) or when its
 * factory failed. Never retryable: the plugin or its configuration must change. The message
 * names the plugin as the user gave it and what is wrong.
 */
export class PluginError extends MetalfleetError {
  constructor(readonly plugin: string, readonly reason: string, options?: ErrorOptions) {
    super('plugin', `provisioner plugin ${plugin}: ${reason}`, false, undefined, options);
    this.name = 'PluginError';
  }
}
