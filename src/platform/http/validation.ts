import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { ValidateIf } from 'class-validator';

/**
 * A field that may be left out but, when sent, is checked: unlike IsOptional, an explicit null is refused by the
 * field's other rules. For updates whose columns cannot be null ("name": null would reach the database).
 */
export const IsOmittable = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((text) =>
      // class-validator starts messages with the bare property name; name the full path instead.
      text.startsWith(`${error.property} `) ? `${path}${text.slice(error.property.length)}` : `${path}: ${text}`,
    );
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

const common: ValidationPipeOptions = {
  whitelist: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validationError: { target: false, value: false },
  exceptionFactory: (errors) => new BadRequestException(flatten(errors).join('; ') || 'Invalid request'),
};

/**
 * Bodies are strict: an unknown field is refused with a message naming it. Query strings are stripped of
 * unknown parameters instead, as the real service does: clients add their own (the official client's
 * `cache = false` adds `_=<timestamp>` to every GET).
 */
@Injectable()
export class ApiValidationPipe implements PipeTransform {
  private readonly strict = new ValidationPipe({ ...common, forbidNonWhitelisted: true });
  private readonly lenient = new ValidationPipe({ ...common, forbidNonWhitelisted: false });

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return (metadata.type === 'query' ? this.lenient : this.strict).transform(value, metadata) as Promise<unknown>;
  }
}
