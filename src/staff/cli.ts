import type { Command } from 'commander';
import { call, withClientOptions, type ClientOptions } from '../tenancy/cli';
import type { UserView } from './users';

const describeUser = (u: UserView) => `${u.id}  ${u.username}  ${u.role}  ${u.name}${u.disabled ? '  disabled' : ''}`;

/** `users create|list|disable|set-pin|set-role`: thin clients of the operator API's warehouse users. */
export function addUserCommands(program: Command): void {
  const users = program.command('users').description("manage the console's warehouse users");
  withClientOptions(
    users
      .command('create <tenantSlug> <username>')
      .description('create a console user')
      .requiredOption('--name <name>', 'the name the console shows')
      .requiredOption('--role <role>', 'picker, packer or supervisor')
      .requiredOption('--pin <pin>', '6 to 12 digits'),
  ).action((slug: string, username: string, options: ClientOptions & { name: string; role: string; pin: string }) =>
    call(options, 'POST', `/tenants/${encodeURIComponent(slug)}/users`, { username, name: options.name, role: options.role, pin: options.pin }, describeUser),
  );
  withClientOptions(users.command('list <tenantSlug>').description("list the tenant's console users")).action((slug: string, options: ClientOptions) =>
    call(options, 'GET', `/tenants/${encodeURIComponent(slug)}/users`, undefined, (all: UserView[]) => all.map(describeUser).join('\n')),
  );
  withClientOptions(users.command('disable <userId>').description('disable a user (sessions end)')).action((id: string, options: ClientOptions) =>
    call(options, 'POST', `/users/${encodeURIComponent(id)}/disable`, undefined, describeUser),
  );
  withClientOptions(users.command('set-pin <userId>').description("set the user's PIN; its sessions end").requiredOption('--pin <pin>', '6 to 12 digits')).action(
    (id: string, options: ClientOptions & { pin: string }) => call(options, 'POST', `/users/${encodeURIComponent(id)}/pin`, { pin: options.pin }, describeUser),
  );
  withClientOptions(users.command('set-role <userId>').description("set the user's role").requiredOption('--role <role>', 'picker, packer or supervisor')).action(
    (id: string, options: ClientOptions & { role: string }) => call(options, 'POST', `/users/${encodeURIComponent(id)}/role`, { role: options.role }, describeUser),
  );
}
