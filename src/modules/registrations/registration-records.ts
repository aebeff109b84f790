/**
 * A registration and one of its instances as other modules read them (the player, cmi5). They get them from
 * RegistrationProgress and change them only through it or the CommitStore; they never query these tables themselves.
 */
export type { RegistrationEntity as RegistrationRecord } from './entities/registration.entity';
export type { RegistrationInstanceEntity as InstanceRecord } from './entities/registration-instance.entity';
